package projectfile

import (
	"errors"
	"io/fs"
	"os"
)

// openWalk opens rel (native, local and clean) beneath root by components,
// with os.Root: each component is opened relative to its parent without
// following it, and a link is followed only while its target stays beneath
// the root (an absolute target is refused, as RESOLVE_BENEATH does). With
// noFollow a last component that is a link is refused: looked at before
// the open, and the opened file must be the one looked at.
func openWalk(root, rel string, noFollow bool) (*os.File, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close() // the file stays open
	var before fs.FileInfo
	if noFollow {
		if before, err = r.Lstat(rel); err != nil {
			return nil, outside(err)
		}
		if refused := notALastLink(before.Mode()); refused != nil {
			return nil, refused
		}
	}
	f, err := r.OpenFile(rel, openFlags, 0)
	if err != nil {
		return nil, outside(err)
	}
	if noFollow {
		if after, err := f.Stat(); err != nil || !os.SameFile(before, after) {
			f.Close()
			return nil, swapped
		}
	}
	return f, nil
}

// notALastLink refuses, with noFollow, a last component that is a link or
// something os.Root cannot tell from one (Windows' junctions and other
// reparse points are ModeIrregular), each named as what it is.
func notALastLink(m fs.FileMode) error {
	switch {
	case m&fs.ModeSymlink != 0:
		return aLink
	case m&fs.ModeIrregular != 0:
		return notRegular("an irregular file (a junction or another reparse point), not followed here")
	}
	return nil
}

// swapped is the refusal of a file that changed between the look and the
// open: something replaced it, perhaps with a link.
const swapped = notRegular("replaced while it was opened, not followed here")

// outside is errOutside for os.Root's refusal of a path that leads out.
func outside(err error) error {
	if escapes(err) {
		return errOutside
	}
	return err
}

// escapesMessage is the error os.Root gives a path or link that leads out
// of it. It exports no value to match, so its text is the mark;
// TestALinkOutIsRefused/walk fails if a Go release changes it.
const escapesMessage = "path escapes from parent"

func escapes(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == escapesMessage
}
