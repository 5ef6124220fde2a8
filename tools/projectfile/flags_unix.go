//go:build unix

package projectfile

import (
	"os"
	"syscall"
)

// openFlags open without waiting for a FIFO's writer and without making a
// terminal the process's controlling one.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
