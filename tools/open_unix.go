//go:build unix

package tools

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// openNoFollow opens path for reading without following a final symlink
// or waiting for a FIFO's writer.
func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%w (a symlink)", ErrNotRegular)
	case errors.Is(err, syscall.ENXIO):
		return nil, fmt.Errorf("%w (a socket or a device without a driver)", ErrNotRegular)
	}
	return f, err
}
