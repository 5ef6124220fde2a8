package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
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

// View reads the workspace as the run sees it: a file's staged change
// (changeset), else the editor's open buffer (overlay, which may be nil),
// else disk, every path confined by roots first. It holds no state of its
// own: what changes is the changeset's, behind its lock, so a View is safe
// for concurrent use.
type View struct {
	roots     *RootSet
	overlay   Overlay
	changeset *Changeset
}

// Read returns the current view of a file, its whole text. A file read
// from disk over maxWholeFile is not read: the error says its size and
// wraps ErrTooLarge (read_file reads such a file in part, see openRead).
func (v *View) Read(p string) (File, error) {
	abs, rel, err := v.roots.Resolve(p)
	if err != nil {
		return File{}, err
	}
	if f, ok := v.changeset.staged(rel); ok {
		return f, nil
	}
	return readBase(v.overlay, abs, rel)
}

// openRead opens the current view of a file to read it in part: the text
// of a staged change or of the open buffer (in memory already: f.Text), else
// the file on disk, returned open and unread for the caller to read as far
// as it needs and close (f.Text is then empty).
func (v *View) openRead(p string) (f File, disk *os.File, err error) {
	abs, rel, err := v.roots.Resolve(p)
	if err != nil {
		return File{}, nil, err
	}
	if f, ok := v.changeset.staged(rel); ok {
		return f, nil, nil
	}
	return openBase(v.overlay, abs, rel)
}

// maxWholeFile is the largest file read whole from disk: what edit_file,
// write_file and a proposal need (a line diff of its old and new text).
const maxWholeFile = 16 << 20

// ErrTooLarge is wrapped by the error for a file over maxWholeFile.
var ErrTooLarge = errors.New("too large")

// readBase reads what the user has of the file abs (rel as the tools show
// it): the open buffer of overlay (which may be nil), else disk, up to
// maxWholeFile.
func readBase(overlay Overlay, abs, rel string) (File, error) {
	f, disk, err := openBase(overlay, abs, rel)
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

// openBase opens what the user has: the open buffer of overlay (f.Text),
// else the file on disk (disk, a regular file, open).
func openBase(overlay Overlay, abs, rel string) (f File, disk *os.File, err error) {
	if overlay != nil {
		if text, version, ok := overlay.Buffer(abs); ok {
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
