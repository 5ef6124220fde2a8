package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// searchable gives the directory parent/name back its owner's permissions
// without following a link put in its place: fchmodat cannot refuse links
// here, so the directory is opened as a path first and changed through it.
func searchable(parent int, name string) error {
	fd, err := unix.Openat(parent, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Chmod(fmt.Sprintf("/proc/self/fd/%d", fd), 0o700)
}
