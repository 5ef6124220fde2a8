package projectfile

import (
	"errors"
	"io/fs"
	"os"
)

// openWalk opens rel (native, local and clean) beneath root by components,
// with os.Root: each component is opened relative to its parent without
// following it, and a link is followed only while its target stays beneath
// the root (an absolute target is refused, as RESOLVE_BENEATH does).
func openWalk(root, rel string) (*os.File, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close() // the file stays open
	f, err := r.OpenFile(rel, openFlags, 0)
	if err != nil && escapes(err) {
		return nil, errOutside
	}
	return f, err
}

// escapesMessage is the error os.Root gives a path or link that leads out
// of it. It exports no value to match, so its text is the mark;
// TestAWalkRefusesALinkOut fails if a Go release changes it.
const escapesMessage = "path escapes from parent"

func escapes(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == escapesMessage
}
