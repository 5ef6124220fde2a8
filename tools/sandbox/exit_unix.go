//go:build unix

package sandbox

import (
	"os/exec"
	"syscall"
)

// exitCodeOf is e's exit code, or 128+N where signal N killed it.
func exitCodeOf(e *exec.ExitError) int {
	if ws, ok := e.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return e.ExitCode()
}
