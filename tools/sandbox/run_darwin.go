package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// haveSeccomp: seccomp is Linux's.
const haveSeccomp = false

// probe finds the level on macOS: none unless the user asked for Seatbelt
// (AGENT_LSP_SANDBOX=seatbelt) and a command actually runs under the
// profile this package writes, so a profile this macOS rejects is reported
// rather than trusted.
func probe(Level) Caps {
	if Level(os.Getenv("AGENT_LSP_SANDBOX")) != Seatbelt {
		return Caps{Level: None, Why: "Seatbelt is opt-in until it has run on a Mac in agent-lsp's tests (AGENT_LSP_SANDBOX=seatbelt)"}
	}
	if err := trySeatbelt(); err != nil {
		return Caps{Level: None, Why: "Seatbelt does not work here: " + err.Error()}
	}
	return Caps{Level: Seatbelt}
}

// trySeatbelt runs a shell command that writes a file in a fresh dir under
// the profile, and checks it did.
func trySeatbelt() error {
	dir, err := MkdirTemp("probe")
	if err != nil {
		return err
	}
	defer RemoveTree(dir)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	profile, err := seatbeltProfile(seatbeltPolicy{Write: []string{real}})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, sandboxExec, "-p", profile, "/bin/sh", "-c", "echo ok > \"$0\"", filepath.Join(real, "ok")).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v %s", err, strings.TrimSpace(string(out)))
	}
	if _, err := os.Stat(filepath.Join(real, "ok")); err != nil {
		return errors.New("the probe command ran but could not write in its own dir")
	}
	return nil
}

func run(ctx context.Context, caps Caps, spec Spec) (Result, error) {
	w, done, err := commandWorld(caps, spec)
	defer done()
	if err != nil {
		return Result{}, err
	}
	if w.Level != Seatbelt {
		return runPlain(ctx, w, spec.Stdout, spec.Stderr)
	}
	return runSeatbelt(ctx, w, spec.Stdout, spec.Stderr)
}

// start starts a server's world: under sandbox-exec with its profile at
// level seatbelt (killed past its disk limit, checked while it runs), else
// as a plain process.
func start(_ context.Context, caps Caps, spec Spec) (*Process, error) {
	w, done, err := commandWorld(caps, spec)
	if err != nil {
		done()
		return nil, err
	}
	if w.Level != Seatbelt || w.Disk == nil {
		return startPlain(w, spec.Stderr, done)
	}
	var started atomic.Pointer[Process] // the first check comes diskCheckEvery after it is set
	stop := watchDisk(w.Disk.Limit, w.Disk.Counted, w.Disk.Grown, func() {
		if p := started.Load(); p != nil {
			p.Kill()
		}
	})
	p, err := startPlain(w, spec.Stderr, func() {
		stop()
		done()
	})
	if err != nil {
		return nil, err
	}
	started.Store(p)
	return p, nil
}

// runSeatbelt runs world w (seatbeltWorld): sandbox-exec with its profile
// in the view (an APFS clone of the workspace with the run's changes, made
// by the tools package), in a new session (no controlling terminal),
// killed past its disk limit, which is checked while it runs.
func runSeatbelt(ctx context.Context, w World, stdout, stderr io.Writer) (Result, error) {
	cmd := exec.CommandContext(ctx, w.Argv[0], w.Argv[1:]...)
	cmd.Dir = w.Dir
	cmd.Env = w.Env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = outputWait
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("sandbox: %w", err)
	}
	var overDisk atomic.Bool
	stop := watchDisk(w.Disk.Limit, w.Disk.Counted, w.Disk.Grown, func() {
		overDisk.Store(true)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	err := cmd.Wait()
	stop()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // a background child must not outlive the command
	res := Result{Duration: time.Since(start)}
	switch {
	case ctx.Err() != nil:
		return res, ctx.Err()
	case overDisk.Load():
		res.ExitCode, res.Exceeded = 128+int(syscall.SIGKILL), fmt.Sprintf("wrote more than %d MiB, the sandbox's disk limit", w.Disk.Limit>>20)
		return res, nil
	}
	if res.ExitCode, err = exitStatus(err); err != nil {
		return res, fmt.Errorf("sandbox: %w", err)
	}
	return res, nil
}

// diskCheckEvery is the first wait between two checks of the disk limit;
// a check that takes long (a big cache) is made twenty times less often
// than it lasts.
const diskCheckEvery = 200 * time.Millisecond

// watchDisk calls kill once what was written under counted, plus the
// growth of grown since the start, passes limit; stop ends the watch.
func watchDisk(limit int64, counted, grown []string, kill func()) (stop func()) {
	base := usage(grown)
	done := make(chan struct{})
	go func() {
		wait := diskCheckEvery
		for {
			select {
			case <-done:
				return
			case <-time.After(wait):
			}
			began := time.Now()
			if usage(counted)+usage(grown)-base > limit {
				kill()
				return
			}
			wait = max(diskCheckEvery, 20*time.Since(began))
		}
	}()
	return func() { close(done) }
}

// removeStaleCgroups: macOS has no cgroups.
func removeStaleCgroups() {}

// prepare: no helper is started ahead on macOS; sandbox-exec is the
// command's own first process.
func prepare(Caps) {}
