package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// On Windows the level is none: no command is contained, so nothing here
// guards against one racing the host. What is kept is the rule: a symlink
// or junction (a reparse point) on the way is never followed — it is
// replaced when writing and left alone when removing — and a file is
// replaced, not written through.

// isLink reports whether fi is a symlink or another reparse point.
func isLink(fi fs.FileInfo) bool {
	return fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0
}

// WriteBeneath makes dir/rel a new regular file holding data, whatever was
// there before, creating missing parent directories; a link on the way is
// replaced by a directory, never followed.
func WriteBeneath(dir, rel string, data []byte, perm fs.FileMode) error {
	parts, err := splitBeneath(rel)
	if err != nil {
		return err
	}
	cur := dir
	for _, p := range parts[:len(parts)-1] {
		cur = filepath.Join(cur, p)
		fi, err := os.Lstat(cur)
		if err == nil && (isLink(fi) || !fi.IsDir()) {
			if err := os.Remove(cur); err != nil {
				return fmt.Errorf("staging %s: %w", rel, err)
			}
			err = fs.ErrNotExist
		}
		if errors.Is(err, fs.ErrNotExist) {
			err = os.Mkdir(cur, 0o755)
		}
		if err != nil {
			return fmt.Errorf("staging %s: %w", rel, err)
		}
	}
	target := filepath.Join(cur, parts[len(parts)-1])
	if err := removeNoFollow(target); err != nil {
		return fmt.Errorf("staging %s: %w", rel, err)
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm.Perm())
	if err != nil {
		return fmt.Errorf("staging %s: %w", rel, err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// RemoveBeneath removes dir/rel and everything below it, never following a
// link; a path that passes through one is not the view's to remove.
func RemoveBeneath(dir, rel string) error {
	parts, err := splitBeneath(rel)
	if err != nil {
		return err
	}
	cur := dir
	for _, p := range parts[:len(parts)-1] {
		cur = filepath.Join(cur, p)
		fi, err := os.Lstat(cur)
		if err != nil || isLink(fi) || !fi.IsDir() {
			return nil
		}
	}
	return removeNoFollow(filepath.Join(cur, parts[len(parts)-1]))
}

// RemoveTree removes dir and everything below it, never following a link.
func RemoveTree(dir string) error { return removeNoFollow(dir) }

// removeNoFollow removes p: a link itself, or a directory's contents first.
func removeNoFollow(p string) error {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() && !isLink(fi) {
		os.Chmod(p, 0o700)
		entries, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := removeNoFollow(filepath.Join(p, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
