//go:build !windows

package fileuri

// Host is the system this binary runs on.
const Host = POSIX
