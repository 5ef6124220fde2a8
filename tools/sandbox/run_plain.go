//go:build unix

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// runPlain runs world w of level none (plainWorld): with no OS isolation,
// in the copy, with the scrubbed environment and git pointed at no
// repository, in a session of its own — no controlling terminal to type
// into (TIOCSTI) when agent-lsp runs in one — whose process group a
// timeout or cancellation kills.
func runPlain(ctx context.Context, w World, stdout, stderr io.Writer) (Result, error) {
	cmd := exec.CommandContext(ctx, w.Argv[0], w.Argv[1:]...)
	cmd.Dir = w.Dir
	cmd.Env = w.Env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = outputWait
	start := time.Now()
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // a background child must not outlive the command
	}
	res := Result{Duration: time.Since(start)}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return res, ctx.Err()
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		return res, fmt.Errorf("sandbox: running the command: %w", err)
	}
	return res, nil
}

// findShell is bash on PATH (host.shell).
func findShell() (string, error) { return exec.LookPath("bash") }
