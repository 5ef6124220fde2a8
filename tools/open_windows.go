package tools

import (
	"fmt"
	"io/fs"
	"os"
)

// openNoFollow opens path for reading, refusing a final symlink or junction
// (looked at just before: Windows has no O_NOFOLLOW; opening a named pipe
// does not wait for its writer).
func openNoFollow(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return nil, fmt.Errorf("%w (a symlink)", ErrNotRegular)
	}
	return os.Open(path)
}
