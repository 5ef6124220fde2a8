package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// nsFlags are the namespaces of the full level (the network one is left out
// when the user opted in to network access).
const nsFlags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS

// systemReadOnly are the directories every command may read: programs,
// libraries and system configuration, never a home directory.
var systemReadOnly = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store",
	"/proc", "/dev/random", "/dev/urandom", "/dev/zero", "/dev/full"}

func probe() Caps {
	c := Caps{LandlockABI: landlockABI()}
	if c.LandlockABI == 0 {
		c.Level, c.Why = None, "this kernel has no Landlock"
		return c
	}
	if cg, err := newCgroup(Limits{}.withDefaults()); err == nil {
		cg.remove()
		c.Cgroup, _ = cgroupParents()
	}
	mounts, err := probeNamespaces()
	if err != nil {
		c.Level, c.Why = Landlock, "no user namespaces here ("+err.Error()+")"
		return c
	}
	c.Level, c.Mounts = Full, mounts
	return c
}

// probeNamespaces starts the helper in the full level's namespaces and asks
// it whether an overlay mounts there.
func probeNamespaces() (string, error) {
	dir, err := os.MkdirTemp("", "agent-lsp-probe-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	v := View{Lower: filepath.Join(dir, "lower"), Upper: filepath.Join(dir, "upper"), Work: filepath.Join(dir, "work")}
	for _, d := range []string{v.Lower, v.Upper, v.Work, filepath.Join(dir, "merged")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return "", err
		}
	}
	var out strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	report, err := startHelper(ctx, helperSpec{Probe: true, View: v}, nsFlags, nil, &out, &out)
	if err != nil {
		return "", err
	}
	switch report {
	case "overlay", "copy":
		return report, nil
	}
	return "", fmt.Errorf("%s %s", report, strings.TrimSpace(out.String()))
}

func run(ctx context.Context, caps Caps, spec Spec) (Result, error) {
	if caps.Level == None {
		return runPlain(ctx, spec)
	}
	tmp, err := os.MkdirTemp("", "agent-lsp-tmp-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(tmp)
	bash, err := exec.LookPath("bash")
	if err != nil {
		return Result{}, err
	}
	limits := spec.Limits.withDefaults()
	hs := helperSpec{
		Argv: []string{bash, "-c", spec.Command},
		Env:  environ(spec.Env, spec.Home, tmp, spec.Cache, caps.modCache),
		Landlock: &landlockRules{
			ABI:    caps.LandlockABI,
			RO:     slices.Concat(systemReadOnly, []string{caps.goRoot, caps.modCache, filepath.Dir(bash)}, caps.toolDirs, spec.ReadOnly),
			RW:     []string{spec.Home, spec.Cache, tmp, "/dev/null", "/dev/shm"},
			Scoped: true,
		},
		Rlimits: []rlimit{{unix.RLIMIT_FSIZE, uint64(limits.FileSize)}, {unix.RLIMIT_CORE, 0}},
	}
	flags := uintptr(0)
	if caps.Level == Full {
		flags = nsFlags
		if spec.Network {
			flags &^= syscall.CLONE_NEWNET
		}
		hs.Namespaces, hs.OwnNetwork, hs.View, hs.Dir = true, !spec.Network, spec.View, spec.View.Root
		hs.ReadOnly = []string{filepath.Join(spec.View.Root, ".git")}
		hs.Landlock.RW = append(hs.Landlock.RW, spec.View.Root)
	} else {
		hs.Dir = spec.View.Copy
		hs.Landlock.RW = append(hs.Landlock.RW, spec.View.Copy)
		if spec.GitDir != "" {
			hs.Env = append(hs.Env, "GIT_DIR="+spec.GitDir, "GIT_WORK_TREE="+spec.View.Copy)
			hs.Landlock.RO = append(hs.Landlock.RO, spec.GitDir)
		}
		hs.Landlock.NoTCP = !spec.Network
	}
	cg, cgErr := newCgroup(limits)
	if cgErr != nil {
		// RLIMIT_NPROC counts the user's processes (and spares root), so it is
		// only the fallback; likewise RLIMIT_DATA for memory.
		hs.Rlimits = append(hs.Rlimits, rlimit{unix.RLIMIT_NPROC, uint64(limits.Processes)}, rlimit{unix.RLIMIT_DATA, uint64(limits.Memory)})
	}
	start := time.Now()
	report, err := startHelper(ctx, hs, flags, cg, spec.Stdout, spec.Stderr, spec.WaitDelay)
	res := Result{Duration: time.Since(start)}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return res, ctx.Err()
	case report != "":
		return res, fmt.Errorf("sandbox: %s", report)
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.ExitCode = 128 + int(ws.Signal())
		}
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		return res, fmt.Errorf("sandbox: %w", err)
	}
	return res, nil
}

// startHelper re-executes this binary as the helper in new namespaces
// (flags), places it in cg before it may fork, sends it spec and waits. It
// returns the helper's report: empty when the command ran, else why the
// isolation could not be set up (or, for a probe, what works).
func startHelper(ctx context.Context, spec helperSpec, flags uintptr, cg *cgroup, stdout, stderr io.Writer, waitDelay ...time.Duration) (string, error) {
	specR, specW, err := os.Pipe()
	if err != nil {
		return "", err
	}
	reportR, reportW, err := os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		return "", err
	}
	defer reportR.Close()
	cmd := exec.CommandContext(ctx, "/proc/self/exe")
	cmd.Args[0] = helperName
	cmd.Env = append([]string{}, spec.Env...) // never nil (nil inherits ours): the helper's environ shows nothing secret either
	cmd.ExtraFiles = []*os.File{specR, reportW}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: flags == 0}
	if flags != 0 {
		cmd.SysProcAttr.Cloneflags = flags
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	}
	cmd.Cancel = func() error { return killHelper(cmd, flags, cg) }
	if len(waitDelay) > 0 {
		cmd.WaitDelay = waitDelay[0]
	}
	// Pdeathsig fires when the thread that started the helper ends, not the
	// process: keep this goroutine on its thread until the helper is done.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	err = cmd.Start()
	specR.Close()
	reportW.Close()
	if err != nil {
		specW.Close()
		return "", err
	}
	if cg != nil {
		defer cg.remove()
		if err := cg.add(cmd.Process.Pid); err != nil {
			specW.Close()
			killHelper(cmd, flags, cg)
			cmd.Wait()
			return "", fmt.Errorf("cgroup: %w", err)
		}
	}
	err = json.NewEncoder(specW).Encode(spec)
	specW.Close()
	waitErr := cmd.Wait()
	// Whatever it left behind below full (background or setsid children); at
	// full level the pid namespace died with the helper.
	if flags == 0 {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if cg != nil {
		cg.kill()
	}
	report, _ := io.ReadAll(io.LimitReader(reportR, 64<<10))
	if err != nil && len(report) == 0 {
		return "", fmt.Errorf("sending the spec: %w", err)
	}
	return strings.TrimSpace(string(report)), waitErr
}

// killHelper ends the command and everything it started: at full level the
// helper is pid 1 of its namespace, and the kernel kills the rest with it;
// below, its process group and its cgroup.
func killHelper(cmd *exec.Cmd, flags uintptr, cg *cgroup) error {
	if cmd.Process == nil {
		return nil
	}
	pid := cmd.Process.Pid
	if flags == 0 {
		syscall.Kill(-pid, syscall.SIGKILL)
	} else {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if cg != nil {
		cg.kill()
	}
	return nil
}
