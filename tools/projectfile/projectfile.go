// Package projectfile is the one way agent-lsp reads, for its own use, a file
// that a workspace holds: instruction files (AGENTS.md), .agent-lsp.toml,
// .mcp.json, ignore files, the git metadata it looks at. A repository is
// input, not configuration, and whoever wrote it may have made any of these
// a link to ~/.ssh/id_rsa, /proc/self/environ, /dev/zero or /dev/stdin.
//
// The invariant: a file is read only if it is reached beneath its root
// without a link leading out of it, and only if it is a regular file; and
// never more of it than a cap fixed before reading. A link that stays
// beneath the root is followed; one whose target is absolute, or climbs out
// with "..", is refused (ErrOutside), as is every /proc "magic" link. The
// file is opened without waiting (O_NONBLOCK, O_NOCTTY) and judged by fstat
// of what was opened, so a FIFO, device, socket, directory or a file of
// /proc or /sys is refused (ErrNotRegular) at once, never read or waited on.
//
// On Linux the file is opened with openat2(2) and RESOLVE_BENEATH |
// RESOLVE_NO_MAGICLINKS; where openat2 is missing (kernels before 5.6, or a
// seccomp filter that answers ENOSYS or EPERM) and on other systems, by
// components with os.Root: each one opened relative to its parent without
// following it, a link resolved only while its target stays beneath the
// root. The root itself is the caller's: it is opened as given, links and
// all.
//
// Read cuts a file at its cap and says so; ReadWhole refuses a file over
// it (ErrTooLarge); ReadNoFollow also refuses a last component that is a
// link, as git does for a worktree's .gitignore.
//
// The user's own files outside the workspace (~/.config/agent-lsp/config.toml,
// the global git config) are not project files and are read as usual.
package projectfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"syscall"
)

// Errors a read is refused with, wrapped with the file's path and why;
// match them with errors.Is. A missing file is an fs.ErrNotExist.
var (
	// ErrOutside: the path, or a link on the way, leads out of the root.
	ErrOutside = errors.New("a link leads outside the root")
	// ErrNotRegular: what the path names is a FIFO, device, socket,
	// directory or a file of /proc or /sys, not a regular file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file is larger than the cap of a caller that wants
	// all of it or nothing (ReadWhole).
	ErrTooLarge = errors.New("too large")
)

// Read reads at most limit bytes of the file at rel (slash-separated,
// relative to root) under the package's rule. cut reports that the file
// had more: data is then its first limit bytes. A negative limit reads
// nothing.
func Read(root, rel string, limit int64) (data []byte, cut bool, err error) {
	return read(root, rel, limit, how{})
}

// ReadWhole is Read for a file that is useless cut (TOML, JSON, a git
// index): a file larger than limit is refused whole with ErrTooLarge, and
// nothing of it is returned.
func ReadWhole(root, rel string, limit int64) ([]byte, error) {
	data, _, err := read(root, rel, limit, how{whole: true})
	return data, err
}

// ReadNoFollow is Read for a file whose last component must not be a link
// at all, even one that stays beneath the root (ErrNotRegular, "a
// symlink"), as git opens a worktree's .gitignore and .gitattributes. The
// directories on the way are followed as Read follows them.
func ReadNoFollow(root, rel string, limit int64) (data []byte, cut bool, err error) {
	return read(root, rel, limit, how{noFollow: true})
}

// how a file is read: whole or nothing; refusing a last component that is
// a link.
type how struct{ whole, noFollow bool }

func read(root, rel string, limit int64, h how) ([]byte, bool, error) {
	limit = min(max(limit, 0), math.MaxInt64-1) // limit+1 is read to see a cut
	name := filepath.Join(root, filepath.FromSlash(rel))
	f, size, err := openRegular(root, rel, h.noFollow)
	if err != nil {
		return nil, false, describe(name, root, err)
	}
	defer f.Close()
	if h.whole && size > limit {
		return nil, false, fmt.Errorf("%s: %w (%s; the most read is %s)", name, ErrTooLarge, bytesString(size), bytesString(limit))
	}
	data, err := readAtMost(f, size, limit+1)
	if err != nil {
		return nil, false, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(len(data)) <= limit {
		return data, false, nil
	}
	if h.whole { // it grew while it was read
		return nil, false, fmt.Errorf("%s: %w (more than %s, the most read)", name, ErrTooLarge, bytesString(limit))
	}
	return data[:limit], true, nil
}

// openRegular opens rel beneath root and returns it with its size if it is
// a regular file (by fstat of the opened file).
func openRegular(root, rel string, noFollow bool) (*os.File, int64, error) {
	native := filepath.FromSlash(rel)
	if !filepath.IsLocal(native) {
		return nil, 0, errOutside
	}
	f, err := open(root, filepath.Clean(native), noFollow)
	if errors.Is(err, syscall.ENXIO) { // open(2) of a socket
		err = notRegular("a socket or a device without a driver")
	}
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = notRegular(Kind(fi.Mode()))
	}
	if err == nil {
		if special := specialFS(f); special != "" {
			err = notRegular(special)
		}
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// readAtMost reads up to n bytes of f, whose fstat size was size: the
// buffer is sized once for a file that does not change while it is read.
func readAtMost(f *os.File, size, n int64) ([]byte, error) {
	r := io.LimitReader(f, n)
	buf := make([]byte, 0, min(max(size+1, 512), n))
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// errOutside and notRegular are open's refusals before describe names the
// file.
var errOutside = errors.New("outside")

type notRegular string

// aLink is the refusal of a last component that is a link, with noFollow.
const aLink = notRegular("a symlink, not followed here")

func (n notRegular) Error() string { return string(n) }

// describe says which file was refused and why.
func describe(name, root string, err error) error {
	var kind notRegular
	switch {
	case errors.Is(err, errOutside):
		return fmt.Errorf("%s: %w %s", name, ErrOutside, root)
	case errors.As(err, &kind):
		return fmt.Errorf("%s: %w (%s)", name, ErrNotRegular, string(kind))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%s: %w (a loop of links, or a /proc magic link)", name, err)
	}
	return &fs.PathError{Op: "open", Path: name, Err: err}
}

// Kind names what a file that is not regular is, for a message: "a
// directory", "a named pipe", "a socket", "a device", "a special file".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// bytesString is n exactly: "1 MiB", "32 KiB", "1048577 bytes".
func bytesString(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
