package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
)

// Overlay is the editor's view of open documents. The server implements it;
// the CLI has none. Paths are absolute with symlinks resolved.
type Overlay interface {
	// Buffer returns the open buffer's text and version, ok=false when the file
	// is not open in the editor.
	Buffer(absPath string) (text string, version int32, ok bool)
}

// Source says where a read was served from.
type Source int

const (
	FromDisk Source = iota
	FromBuffer
	FromStaged
)

// File is the workspace's current view of one file.
type File struct {
	Path string // slash-separated, as Resolve's rel
	Text string
	// Version is the editor buffer's version when Source is FromBuffer, or when
	// a staged change started from a buffer; HasVersion says which.
	Version    int32
	HasVersion bool
	Source     Source
}

// Workspace is the view that tools read and write. Reads see, in order, the
// changes staged by this run, the editor's open buffers, then disk. Writes are
// staged, never written. Every path is confined to the roots after resolving
// "..", absolute paths and symlinks (roots.go says how paths name them when
// there are several). Safe for concurrent use.
type Workspace struct {
	*RootSet
	overlay Overlay

	mu          sync.Mutex // guards changes, sandboxOpts and the folders' views
	changes     map[string]*Change
	sandboxOpts SandboxOptions
}

// NewWorkspace opens a view of root. overlay may be nil.
func NewWorkspace(root string, overlay Overlay) (*Workspace, error) {
	return NewWorkspaceRoots([]Root{{Dir: root}}, 0, overlay)
}

// NewWorkspaceRoots opens a view of several roots, runs starting in
// roots[current]. A root without a name takes RootName's; a root whose
// folder is one listed before it (through a link) is left out. overlay
// may be nil.
func NewWorkspaceRoots(roots []Root, current int, overlay Overlay) (*Workspace, error) {
	rs, err := newRootSet(roots, current)
	if err != nil {
		return nil, err
	}
	return &Workspace{RootSet: rs, overlay: overlay, changes: map[string]*Change{}}, nil
}

// Read returns the current view of a file, its whole text. A file read
// from disk over maxWholeFile is not read: the error says its size and
// wraps ErrTooLarge (read_file reads such a file in part, see openRead).
func (w *Workspace) Read(p string) (File, error) {
	abs, rel, err := w.Resolve(p)
	if err != nil {
		return File{}, err
	}
	return w.read(abs, rel)
}

func (w *Workspace) read(abs, rel string) (File, error) {
	if f, ok := w.staged(rel); ok {
		return f, nil
	}
	return w.readBase(abs, rel)
}

// staged is the view of rel that a staged change gives, if there is one.
func (w *Workspace) staged(rel string) (File, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, ok := w.changes[w.key(rel)]
	if !ok {
		return File{}, false
	}
	return File{Path: rel, Text: c.New, Version: c.Version, HasVersion: c.HasVersion, Source: FromStaged}, true
}

// maxWholeFile is the largest file read whole from disk: what edit_file,
// write_file and a proposal need (a line diff of its old and new text).
const maxWholeFile = 16 << 20

// ErrTooLarge is wrapped by the error for a file over maxWholeFile.
var ErrTooLarge = errors.New("too large")

// readBase reads what the user has: the open buffer, else disk, up to
// maxWholeFile.
func (w *Workspace) readBase(abs, rel string) (File, error) {
	f, disk, err := w.openBase(abs, rel)
	if err != nil || disk == nil {
		return f, err
	}
	defer disk.Close()
	size := int64(0)
	if fi, err := disk.Stat(); err == nil {
		size = fi.Size()
	}
	tooLarge := func(what string) error {
		return fmt.Errorf("%s is %s: %w to read whole or change here (the limit is %s)", rel, what, ErrTooLarge, byteSize(maxWholeFile))
	}
	if size > maxWholeFile {
		return File{}, tooLarge(byteSize(size))
	}
	var text strings.Builder // holds the one copy of the text
	text.Grow(int(size))
	n, err := io.Copy(&text, io.LimitReader(disk, maxWholeFile+1))
	switch {
	case err != nil:
		return File{}, err
	case n > maxWholeFile: // it grew while read
		return File{}, tooLarge("over " + byteSize(maxWholeFile))
	}
	f.Text = text.String()
	return f, nil
}

// openRead opens the current view of a file to read it in part: the text
// of a staged change or of the open buffer (in memory already: f.Text), else
// the file on disk, returned open and unread for the caller to read as far
// as it needs and close (f.Text is then empty).
func (w *Workspace) openRead(p string) (f File, disk *os.File, err error) {
	abs, rel, err := w.Resolve(p)
	if err != nil {
		return File{}, nil, err
	}
	if f, ok := w.staged(rel); ok {
		return f, nil, nil
	}
	return w.openBase(abs, rel)
}

// openBase opens what the user has: the open buffer (f.Text), else the
// file on disk (disk, a regular file, open).
func (w *Workspace) openBase(abs, rel string) (f File, disk *os.File, err error) {
	if w.overlay != nil {
		if text, version, ok := w.overlay.Buffer(abs); ok {
			return File{Path: rel, Text: text, Version: version, HasVersion: true, Source: FromBuffer}, nil, nil
		}
	}
	disk, err = openRegular(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return File{}, nil, fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
	case errors.Is(err, ErrNotRegular):
		return File{}, nil, fmt.Errorf("%s is %w", rel, err)
	case err != nil:
		return File{}, nil, err
	}
	return File{Path: rel, Source: FromDisk}, disk, nil
}

// Stage records newText as the content of path. The first stage of a file
// remembers what it was (text, buffer version, whether it existed), which the
// proposal needs to detect a stale buffer later. Paths under .git are refused
// here, so that every writer is refused (ErrGitDir).
func (w *Workspace) Stage(p, newText string) (Change, error) {
	abs, rel, err := w.Resolve(p)
	if err != nil {
		return Change{}, err
	}
	if err := refuseGitDir(p, rel); err != nil {
		return Change{}, err
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return Change{}, fmt.Errorf("%s is a directory", rel)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	c, ok := w.changes[w.key(rel)]
	if !ok {
		c = &Change{Path: rel, AbsPath: abs}
		f, err := w.readBase(abs, rel)
		switch {
		case err == nil:
			c.Original, c.Existed, c.Version, c.HasVersion = f.Text, true, f.Version, f.HasVersion
		case !errors.Is(err, fs.ErrNotExist):
			return Change{}, err
		}
		w.changes[w.key(rel)] = c
	}
	c.New = newText
	return *c, nil
}

// Changes returns the staged changes that differ from their original, sorted by
// path. They are copies: the caller may keep them after the run.
func (w *Workspace) Changes() []Change {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]Change, 0, len(w.changes))
	for _, c := range w.changes {
		if c.Existed && c.New == c.Original {
			continue
		}
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// stagedPaths lists files staged (created or edited) under dir ("." for
// all of them, in every root).
func (w *Workspace) stagedPaths(dir string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	prefix := w.key(dir) + "/"
	for key, c := range w.changes {
		if dir == "." || strings.HasPrefix(key, prefix) {
			out = append(out, c.Path)
		}
	}
	sort.Strings(out)
	return out
}

// Restore replaces the staged changes with changes (a snapshot from Changes).
func (w *Workspace) Restore(changes []Change) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.changes = map[string]*Change{}
	for _, c := range changes {
		c := c
		w.changes[w.key(c.Path)] = &c
	}
}

// Close removes the commands' views, if any were made. The workspace stays usable.
func (w *Workspace) Close() error {
	w.mu.Lock()
	var views []commandView
	for _, f := range w.folders {
		if f.view != nil {
			views = append(views, f.view)
			f.view = nil
		}
	}
	w.mu.Unlock()
	var errs []error
	for _, v := range views {
		errs = append(errs, v.Close())
	}
	return errors.Join(errs...)
}
