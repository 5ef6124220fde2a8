//go:build unix

package sandbox

import (
	"context"
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
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if res.ExitCode, err = exitStatus(err); err != nil {
		return res, fmt.Errorf("sandbox: running the command: %w", err)
	}
	return res, nil
}

// findShell is bash on PATH (host.shell).
func findShell() (string, error) { return exec.LookPath("bash") }

// startPlain starts a server's world w with no OS isolation (level none, or
// Seatbelt's sandbox-exec, whose profile is in w.Argv): in a session of
// its own whose process group Kill kills. done removes its scratch dir once
// it exited.
func startPlain(w World, stderr io.Writer, done func()) (*Process, error) {
	pipes, err := newServerPipes()
	if err != nil {
		done()
		return nil, err
	}
	cmd := exec.Command(w.Argv[0], w.Argv[1:]...)
	cmd.Dir, cmd.Env = w.Dir, w.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pipes.stdinR, pipes.stdoutW, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.WaitDelay = outputWait
	if err := cmd.Start(); err != nil {
		pipes.close()
		done()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	pipes.started()
	pid := cmd.Process.Pid
	kill := func() { _ = syscall.Kill(-pid, syscall.SIGKILL) }
	wait := func() (Result, error) {
		err := cmd.Wait()
		kill() // a background child must not outlive the server
		code, err := exitStatus(err)
		if err != nil {
			return Result{}, fmt.Errorf("sandbox: %w", err)
		}
		return Result{ExitCode: code}, nil
	}
	return newProcess(w, pid, pipes.stdinW, pipes.stdoutR, kill, wait, done), nil
}
