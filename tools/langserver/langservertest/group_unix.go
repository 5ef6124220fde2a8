//go:build unix

package langservertest

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so that what the
// server started (gopls's go list) ends with it: a child left running wrote
// into the test's temp dirs after they were removed.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the process group pid leads.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
