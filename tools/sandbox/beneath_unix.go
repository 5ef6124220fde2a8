//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// The host-side file work on a view (staging a change into a copy or an
// overlay, removing it again, removing the view) happens in directories that
// sandboxed commands wrote. So it never follows what a command may have
// made there: every component is opened relative to its parent with
// O_NOFOLLOW, a symlink on the way is an error, the file itself is replaced
// (unlinked, then created with O_EXCL) rather than written through, so a
// hard link, FIFO or device a command left in its place is never opened.

// openDirBeneath opens dir, then each of parts below it as a directory,
// never following a symlink; create makes missing ones (mode 0755). The
// caller closes the returned descriptor.
func openDirBeneath(dir string, parts []string, create bool) (int, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	for _, p := range parts {
		next, err := unix.Openat(fd, p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if create && (errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR)) {
			// A link or a file a command put where the path needs a
			// directory: the staged change wins, as it does over an
			// overlay's upper dir. The link itself goes, never its target.
			if err = unix.Unlinkat(fd, p, 0); err == nil {
				err = unix.ENOENT
			}
		}
		if errors.Is(err, unix.ENOENT) && create {
			if err = unix.Mkdirat(fd, p, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = unix.Openat(fd, p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
		}
		unix.Close(fd)
		switch {
		case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR):
			return -1, fmt.Errorf("%s: %w", p, ErrLinkInView)
		case err != nil:
			return -1, &fs.PathError{Op: "open", Path: p, Err: err}
		}
		fd = next
	}
	return fd, nil
}

// WriteBeneath makes dir/rel a new regular file holding data, whatever was
// there before (a file, a link, a FIFO, a directory tree), creating missing
// parent directories. No component of rel may be a symlink.
func WriteBeneath(dir, rel string, data []byte, perm fs.FileMode) error {
	parts, err := splitBeneath(rel)
	if err != nil {
		return err
	}
	parent, err := openDirBeneath(dir, parts[:len(parts)-1], true)
	if err != nil {
		return fmt.Errorf("staging %s: %w", rel, err)
	}
	defer unix.Close(parent)
	name := parts[len(parts)-1]
	// A command running at the same time could put something back between
	// the removal and the creation: O_EXCL refuses it, and we try again.
	for range 3 {
		if err := removeAt(parent, name); err != nil {
			return fmt.Errorf("staging %s: %w", rel, err)
		}
		fd, err := unix.Openat(parent, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return fmt.Errorf("staging %s: %w", rel, err)
		}
		f := os.NewFile(uintptr(fd), rel)
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		return werr
	}
	return fmt.Errorf("staging %s: something keeps being created at this path", rel)
}

// RemoveBeneath removes dir/rel and everything below it, never following a
// link. A path already gone is not an error.
func RemoveBeneath(dir, rel string) error {
	parts, err := splitBeneath(rel)
	if err != nil {
		return err
	}
	parent, err := openDirBeneath(dir, parts[:len(parts)-1], false)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrLinkInView) {
		return nil // not there through directories: nothing of the view's to remove
	}
	if err != nil {
		return err
	}
	defer unix.Close(parent)
	return removeAt(parent, parts[len(parts)-1])
}

// RemoveTree removes dir and everything below it, never following a link,
// and gives back the write and search permission a command took from its own
// directories (chmod 0) so that they can be emptied.
func RemoveTree(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return os.Remove(dir)
	}
	parent, err := unix.Open(dirOf(dir), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(parent)
	return removeAt(parent, baseOf(dir))
}

func dirOf(p string) string {
	i := strings.LastIndexByte(strings.TrimRight(p, "/"), '/')
	switch {
	case i < 0:
		return "."
	case i == 0:
		return "/"
	}
	return p[:i]
}

func baseOf(p string) string {
	p = strings.TrimRight(p, "/")
	return p[strings.LastIndexByte(p, '/')+1:]
}

// removeAt removes name in the directory parent and, if it is a directory,
// everything below it. Directories are opened with O_NOFOLLOW, so a link
// swapped in for one is removed, not descended.
func removeAt(parent int, name string) error {
	err := unix.Unlinkat(parent, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
		return &fs.PathError{Op: "unlink", Path: name, Err: err}
	}
	fd, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.EACCES) && searchable(parent, name) == nil {
		fd, err = unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return &fs.PathError{Op: "open", Path: name, Err: err}
	}
	// Make it ours to empty: a command may have taken its write permission.
	_ = unix.Fchmod(fd, 0o700)
	d := os.NewFile(uintptr(fd), name)
	for {
		names, rerr := d.Readdirnames(256)
		for _, n := range names {
			if err := removeAt(fd, n); err != nil {
				d.Close()
				return err
			}
		}
		if rerr != nil || len(names) == 0 {
			break
		}
		// Entries were removed while reading: start over from the top.
		if _, err := d.Seek(0, 0); err != nil {
			break
		}
	}
	d.Close()
	if err := unix.Unlinkat(parent, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		return &fs.PathError{Op: "rmdir", Path: name, Err: err}
	}
	return nil
}
