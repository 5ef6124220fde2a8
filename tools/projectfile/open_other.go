//go:build !linux

package projectfile

import "os"

// open opens rel (native, local and clean) beneath root: by components,
// everywhere but Linux.
func open(root, rel string, noFollow bool) (*os.File, error) { return openWalk(root, rel, noFollow) }

// specialFS names a pseudo file system that fstat cannot tell from a disk:
// only Linux's /proc and /sys need it.
func specialFS(*os.File) string { return "" }
