package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	removeStaleCgroups()
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
			RW:     []string{spec.Home, spec.Cache, tmp, "/dev/null"},
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
		// /dev/shm is a private tmpfs in the mount namespace; below full it is
		// the host's, shared with every process, and stays closed.
		hs.Landlock.RW = append(hs.Landlock.RW, spec.View.Root, "/dev/shm")
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
	report, err := startHelper(ctx, hs, flags, cg, spec.Stdout, spec.Stderr)
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
