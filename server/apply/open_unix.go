//go:build unix

package apply

import (
	"os"
	"syscall"
)

// openForWrite opens abs for writing, creating it, without following a
// final symlink or waiting for a FIFO's reader.
func openForWrite(abs string, mode os.FileMode) (*os.File, error) {
	return os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, mode)
}
