//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the server in a process group of its own, so what it starts
// (npx starts node, a shell script its commands) can be ended with it, and
// a terminal's ^C to agent-lsp's group does not reach it first.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup ends whatever is left of the server's process group.
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}
