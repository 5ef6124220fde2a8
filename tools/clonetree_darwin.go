package tools

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// cloneTree makes dst (an empty directory) a copy-on-write clone of src's
// entries except .git, one clonefile(2) per top-level entry: APFS clones a
// whole directory tree in one call and shares its blocks, so making the
// view does not grow with the workspace, and a command writing a file there
// never reaches the original. It returns how many entries it cloned; on an
// error (another file system, a volume boundary, a FIFO inside) dst holds
// part of src and the caller copies instead.
func cloneTree(src, dst string) (int, error) {
	entries, err := os.ReadDir(src)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if strings.EqualFold(e.Name(), ".git") {
			continue // the repository is the host's; commands get it read-only or not at all
		}
		if err := unix.Clonefile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()), unix.CLONE_NOFOLLOW|unix.CLONE_NOOWNERCOPY); err != nil {
			return n, &os.PathError{Op: "clonefile", Path: e.Name(), Err: err}
		}
		n++
	}
	return n, nil
}
