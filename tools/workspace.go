package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// ErrOutsideWorkspace is returned for any path that resolves outside the root.
var ErrOutsideWorkspace = errors.New("path is outside the workspace")

// Source says where a read was served from.
type Source int

const (
	FromDisk Source = iota
	FromBuffer
	FromStaged
)

// File is the workspace's current view of one file.
type File struct {
	Path string // slash-separated, relative to the root
	Text string
	// Version is the editor buffer's version when Source is FromBuffer, or when
	// a staged change started from a buffer; HasVersion says which.
	Version    int32
	HasVersion bool
	Source     Source
}

// Workspace is the view that tools read and write. Reads see, in order, the
// changes staged by this run, the editor's open buffers, then disk. Writes are
// staged, never written. Every path is confined to the root after resolving
// "..", absolute paths and symlinks. Safe for concurrent use.
type Workspace struct {
	root    string // absolute, symlinks resolved
	overlay Overlay
	paths   pathStyle // how the system spells paths, and whether root's volume ignores case

	mu          sync.Mutex // guards changes, view and sandboxOpts
	changes     map[string]*Change
	view        commandView
	sandboxOpts SandboxOptions
}

// NewWorkspace opens a view of root. overlay may be nil.
func NewWorkspace(root string, overlay Overlay) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace root: %w", err)
	}
	if fi, err := os.Stat(resolved); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("workspace root %s is not a directory", root)
	}
	paths := hostPaths
	paths.foldCase = caseInsensitive(resolved, hostPaths.foldCase)
	return &Workspace{root: resolved, overlay: overlay, paths: paths, changes: map[string]*Change{}}, nil
}

// Root is the absolute, symlink-resolved workspace root.
func (w *Workspace) Root() string { return w.root }

// Resolve maps a path given by the model (relative to the root, or absolute
// inside it, in the system's spelling or, on Windows, with "/" or Git
// Bash's /c/…) to its absolute and slash-separated relative forms, refusing
// any path that leaves the root lexically or through a symlink, and, on
// Windows, names that are no plain file (pathStyle.check). Where the root's
// volume ignores case, so does the comparison, and the absolute path
// starts with the root as the workspace spells it.
func (w *Workspace) Resolve(p string) (abs, rel string, err error) {
	if strings.ContainsRune(p, 0) {
		return "", "", fmt.Errorf("%q: invalid path", p)
	}
	if p == "" {
		p = "."
	}
	p = w.paths.native(p, w.root)
	if err := w.paths.check(p); err != nil {
		return "", "", err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.root, p)
	}
	p = filepath.Clean(p)
	if !w.paths.within(w.root, p) {
		return "", "", fmt.Errorf("%s: %w", p, ErrOutsideWorkspace)
	}
	real, err := resolveExisting(p)
	if err != nil {
		return "", "", err
	}
	if !w.paths.within(w.root, real) {
		return "", "", fmt.Errorf("%s resolves to %s: %w", p, real, ErrOutsideWorkspace)
	}
	rel = w.paths.rel(w.root, real)
	if rel == "." {
		return w.root, rel, nil
	}
	return filepath.Join(w.root, filepath.FromSlash(rel)), rel, nil
}

// within reports whether p is root or below it, case and all: the strict
// test for what is not a model's path (a command's argument, a link's
// target), where a wrong "outside" costs a question and a wrong "inside"
// would not.
func within(root, p string) bool {
	return pathStyle{windows: hostPaths.windows}.within(root, p)
}

// resolveExisting evaluates symlinks in the longest existing prefix of p and
// appends the rest, so a path to a file not yet created is checked too.
func resolveExisting(p string) (string, error) {
	var rest []string
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				real = filepath.Join(real, rest[i])
			}
			return real, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = append(rest, filepath.Base(cur))
		cur = parent
	}
}

// Read returns the current view of a file.
func (w *Workspace) Read(p string) (File, error) {
	abs, rel, err := w.Resolve(p)
	if err != nil {
		return File{}, err
	}
	return w.read(abs, rel)
}

func (w *Workspace) read(abs, rel string) (File, error) {
	w.mu.Lock()
	c, staged := w.changes[w.paths.key(rel)]
	var f File
	if staged {
		f = File{Path: rel, Text: c.New, Version: c.Version, HasVersion: c.HasVersion, Source: FromStaged}
	}
	w.mu.Unlock()
	if staged {
		return f, nil
	}
	return w.readBase(abs, rel)
}

// readBase reads what the user has: the open buffer, else disk.
func (w *Workspace) readBase(abs, rel string) (File, error) {
	if w.overlay != nil {
		if text, version, ok := w.overlay.Buffer(abs); ok {
			return File{Path: rel, Text: text, Version: version, HasVersion: true, Source: FromBuffer}, nil
		}
	}
	data, err := ReadRegular(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return File{}, fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
	case errors.Is(err, ErrNotRegular):
		return File{}, fmt.Errorf("%s is %w", rel, err)
	case err != nil:
		return File{}, err
	}
	return File{Path: rel, Text: string(data), Source: FromDisk}, nil
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
	c, ok := w.changes[w.paths.key(rel)]
	if !ok {
		c = &Change{Path: rel, AbsPath: abs}
		f, err := w.readBase(abs, rel)
		switch {
		case err == nil:
			c.Original, c.Existed, c.Version, c.HasVersion = f.Text, true, f.Version, f.HasVersion
		case !errors.Is(err, fs.ErrNotExist):
			return Change{}, err
		}
		w.changes[w.paths.key(rel)] = c
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

// stagedPaths lists files staged (created or edited) under dir.
func (w *Workspace) stagedPaths(dir string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	prefix := w.paths.key(dir) + "/"
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
		w.changes[w.paths.key(c.Path)] = &c
	}
}

// Close removes the commands' view, if one was made. The workspace stays usable.
func (w *Workspace) Close() error {
	w.mu.Lock()
	v := w.view
	w.view = nil
	w.mu.Unlock()
	if v == nil {
		return nil
	}
	return v.Close()
}
