package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// runPlain runs the command with no OS isolation (level none, the only one
// on Windows): in the copy, with the scrubbed environment, through the POSIX
// shell that Git for Windows (or MSYS2, Cygwin) puts on PATH — the language
// the command policy parses and models write — and in a Job Object, so a
// timeout or cancellation kills the whole tree it started.
func runPlain(ctx context.Context, spec Spec) (Result, error) {
	shell, err := posixShell()
	if err != nil {
		return Result{}, err
	}
	scratch, err := MkdirTemp("scratch")
	if err != nil {
		return Result{}, err
	}
	defer RemoveTree(scratch)
	home, tmp := filepath.Join(scratch, "home"), filepath.Join(scratch, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return Result{}, err
		}
	}
	job, err := killOnCloseJob()
	if err != nil {
		return Result{}, fmt.Errorf("job object: %w", err)
	}
	defer windows.CloseHandle(job) // kills whatever is left in it
	cmd := exec.Command(shell, "-c", spec.Command)
	cmd.Dir = spec.View.Copy
	cmd.Env = environ(spec.Env, home, tmp, spec.Cache, Probe().modCache)
	cmd.Stdout, cmd.Stderr = spec.Stdout, spec.Stderr
	cmd.WaitDelay = outputWait
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("execute_command: %w", err)
	}
	// What the shell starts before it is in the job escapes it: the window
	// is the few instructions between CreateProcess and this call.
	if p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid)); err == nil {
		windows.AssignProcessToJobObject(job, p)
		windows.CloseHandle(p)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		windows.TerminateJobObject(job, 1)
		err = <-done
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

// posixShell finds bash, else sh, on PATH.
func posixShell() (string, error) {
	for _, name := range []string{"bash", "sh"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no POSIX shell on PATH: commands need bash or sh (install Git for Windows and let it add its tools to PATH)")
}

// killOnCloseJob makes a Job Object whose processes die when it is closed.
func killOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}
