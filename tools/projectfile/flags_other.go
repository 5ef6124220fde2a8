//go:build !unix

package projectfile

import "os"

// openFlags: opening a file does not wait on Windows (a named pipe is only
// reached under \\.\pipe\, never beneath a workspace).
const openFlags = os.O_RDONLY
