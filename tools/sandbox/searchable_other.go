//go:build unix && !linux

package sandbox

import "golang.org/x/sys/unix"

// searchable gives the directory parent/name back its owner's permissions
// without following a link put in its place.
func searchable(parent int, name string) error {
	return unix.Fchmodat(parent, name, 0o700, unix.AT_SYMLINK_NOFOLLOW)
}
