package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// runPlain runs world w (plainWorld; level none, the only one on Windows)
// with no OS isolation: in the copy, with the scrubbed environment and git
// pointed at no repository, through the POSIX shell of Git for Windows (or
// MSYS2, Cygwin) — the language the command policy parses and models
// write — and in a Job Object it joins before it runs, so a timeout or
// cancellation kills the whole tree it started.
func runPlain(ctx context.Context, w World, stdout, stderr io.Writer) (Result, error) {
	job, err := killOnCloseJob()
	if err != nil {
		return Result{}, fmt.Errorf("job object: %w", err)
	}
	defer windows.CloseHandle(job) // kills whatever is left in it
	// The command reaches the shell in a file, w.Argv[1] in the command's
	// scratch dir, not on its command line: Windows hands a process one
	// string, which the MSYS runtime splits by rules of its own (in
	// quotes, \\ becomes \), so the text the policy checked would not be
	// the text bash ran. Git's GIT_DIR (w.Env) is a path in the scratch
	// dir too, which holds nothing: Windows has no /dev/null, and git there
	// would take it for a dir on the current drive, which anyone may make.
	if err := os.WriteFile(w.Argv[1], []byte(w.Command+"\n"), 0o600); err != nil {
		return Result{}, err
	}
	cmd := exec.Command(w.Argv[0], w.Argv[1:]...)
	cmd.Dir = w.Dir
	cmd.Env = w.Env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = outputWait
	// The shell starts suspended and runs only once it is in the job, so
	// nothing it starts can be outside it.
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("sandbox: the command did not start: %w", err)
	}
	if err := joinAndResume(job, uint32(cmd.Process.Pid)); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return Result{}, fmt.Errorf("sandbox: the command did not start: %w", err)
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
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if res.ExitCode, err = exitStatus(err); err != nil {
		return res, fmt.Errorf("sandbox: running the command: %w", err)
	}
	return res, nil
}

// findShell is the POSIX shell commands run in (host.shell).
func findShell() (string, error) { return posixShell() }

// posixShell finds the shell commands run in (windowsShells: Git for
// Windows' bash first, never WSL's).
func posixShell() (string, error) {
	git, _ := exec.LookPath("git")
	for _, p := range windowsShells(os.Getenv("PATH"), git, os.Getenv("SystemRoot")) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", errors.New("no POSIX shell: commands need bash (install Git for Windows and let it add git to PATH)")
}

// joinAndResume puts the suspended process pid in job, then resumes its
// threads (a process created suspended has one).
func joinAndResume(job windows.Handle, pid uint32) error {
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return fmt.Errorf("opening the shell's process: %w", err)
	}
	err = windows.AssignProcessToJobObject(job, p)
	windows.CloseHandle(p)
	if err != nil {
		return fmt.Errorf("putting the shell in a job object: %w", err)
	}
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("listing the shell's threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	resumed := 0
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("resuming the shell: %w", err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resuming the shell: %w", err)
		}
		resumed++
	}
	if resumed == 0 {
		return errors.New("resuming the shell: it has no thread")
	}
	return nil
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

// startPlain starts a server's world w (level none) with no OS isolation:
// its program itself, no shell, in a Job Object it joins before it runs,
// so that Kill, or its end, kills the whole tree it started. done removes
// its scratch dir once it exited.
func startPlain(w World, stderr io.Writer, done func()) (*Process, error) {
	job, err := killOnCloseJob()
	if err != nil {
		done()
		return nil, fmt.Errorf("job object: %w", err)
	}
	pipes, err := newServerPipes()
	if err != nil {
		windows.CloseHandle(job)
		done()
		return nil, err
	}
	cmd := exec.Command(w.Argv[0], w.Argv[1:]...)
	cmd.Dir, cmd.Env = w.Dir, w.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pipes.stdinR, pipes.stdoutW, stderr
	cmd.WaitDelay = outputWait
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED}
	fail := func(err error) (*Process, error) {
		pipes.close()
		windows.CloseHandle(job)
		done()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	if err := joinAndResume(job, uint32(cmd.Process.Pid)); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return fail(err)
	}
	pipes.started()
	var mu sync.Mutex // guards job, which is 0 once closed (its handle could be another's by then)
	kill := func() {
		mu.Lock()
		defer mu.Unlock()
		if job != 0 {
			windows.TerminateJobObject(job, 1)
		}
	}
	wait := func() (Result, error) {
		err := cmd.Wait()
		mu.Lock()
		windows.CloseHandle(job) // kills whatever is left in it
		job = 0
		mu.Unlock()
		code, err := exitStatus(err)
		if err != nil {
			return Result{}, fmt.Errorf("sandbox: %w", err)
		}
		return Result{ExitCode: code}, nil
	}
	return newProcess(w, cmd.Process.Pid, pipes.stdinW, pipes.stdoutR, kill, wait, done), nil
}
