//go:build unix

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// runPlain runs the command with no OS isolation (level none): in the copy,
// with the scrubbed environment and git pointed at no repository
// (plainEnv), in a session of its own — no controlling
// terminal to type into (TIOCSTI) when agent-lsp runs in one — whose
// process group a timeout or cancellation kills.
func runPlain(ctx context.Context, spec Spec) (Result, error) {
	scratch, home, tmp, err := newScratch()
	if err != nil {
		return Result{}, err
	}
	defer RemoveTree(scratch)
	cmd := exec.CommandContext(ctx, "bash", "-c", spec.Command)
	cmd.Dir = spec.View.Copy
	cmd.Env = plainEnv(spec, home, tmp, Probe().modCache, noRepository, windowsHost)
	cmd.Stdout, cmd.Stderr = spec.Stdout, spec.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = outputWait
	start := time.Now()
	err = cmd.Run()
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
		return res, fmt.Errorf("execute_command: %w", err)
	}
	return res, nil
}
