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
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// nsFlags are the namespaces of the full level (the network one is left out
// when the user opted in to network access).
const nsFlags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS

// readOnlySystem is what Landlock lets every command read and execute: the
// system's programs and libraries, the allowlisted parts of /etc, /proc and
// the harmless devices. At full level the new root holds nothing else of
// these anyway; below it this is the only file-system boundary.
var readOnlySystem = sync.OnceValue(func() []string {
	ro := slices.Clone(systemDirs)
	for _, name := range etcAllowed {
		matches, _ := filepath.Glob(filepath.Join("/etc", name))
		ro = append(ro, matches...)
	}
	ro = append(ro, "/proc")
	for _, n := range devNodes {
		ro = append(ro, "/dev/"+n)
	}
	return ro
})

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
		cgroupsUsable.Store(true)
	}
	mounts, bounded, err := probeNamespaces()
	if err != nil {
		c.Level, c.Why = Landlock, "no user namespaces here ("+err.Error()+")"
		return c
	}
	c.Level, c.Mounts, c.Bounded = Full, mounts, bounded
	return c
}

// probeNamespaces starts the helper in the full level's namespaces and asks
// it whether an overlay mounts there; if so, whether a view's layer works
// as commands use it: made by one helper, mounted by another (bounded).
func probeNamespaces() (mounts string, bounded bool, err error) {
	dir, err := MkdirTemp("probe")
	if err != nil {
		return "", false, err
	}
	defer RemoveTree(dir)
	v := View{Lower: filepath.Join(dir, "lower"), Staged: filepath.Join(dir, "staged"), Upper: filepath.Join(dir, "upper"), Work: filepath.Join(dir, "work")}
	for _, d := range []string{v.Lower, v.Staged, v.Upper, v.Work, filepath.Join(dir, "merged")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return "", false, err
		}
	}
	var out strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	layer := NewLayer()
	defer layer.Close()
	report, err := startHelper(ctx, helperSpec{Probe: true, View: v}, nsFlags, nil, layer, nil, &out, &out)
	if err != nil && report == "" {
		return "", false, err
	}
	switch report {
	case "overlay":
		// Made by the first helper (or not: then the second reports so).
		second, _ := startHelper(ctx, helperSpec{Probe: true, View: v}, nsFlags, nil, layer, nil, &out, &out)
		return report, second == "bounded", nil
	case "copy":
		return report, false, nil
	}
	return "", false, fmt.Errorf("%s %s", report, strings.TrimSpace(out.String()))
}

func run(ctx context.Context, caps Caps, spec Spec) (Result, error) {
	if caps.Level == None {
		return runPlain(ctx, spec)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return Result{}, err
	}
	limits := spec.Limits.withDefaults()
	toolchains := slices.Concat([]string{caps.goRoot, caps.modCache, filepath.Dir(bash)}, caps.toolDirs, spec.ReadOnly)
	hs := helperSpec{
		Argv:       []string{bash, "-c", spec.Command},
		Landlock:   &landlockRules{ABI: caps.LandlockABI, RO: slices.Concat(readOnlySystem(), toolchains), Scoped: true},
		Rlimits:    []rlimit{{unix.RLIMIT_FSIZE, uint64(limits.FileSize)}, {unix.RLIMIT_CORE, 0}},
		DropGroups: canDropGroups(),
	}
	if limits.CPU > 0 {
		secs := uint64((limits.CPU + time.Second - 1) / time.Second)
		hs.Rlimits = append(hs.Rlimits, rlimit{unix.RLIMIT_CPU, secs})
	}
	// What the file system does not bound is measured while it runs.
	quota := &diskQuota{limit: limits.Disk, counted: []string{spec.Cache}}
	var layer *Layer
	flags := uintptr(0)
	if caps.Level == Full {
		flags = nsFlags
		if spec.Network {
			flags &^= syscall.CLONE_NEWNET
		}
		v := spec.View
		if v.Copy != "" {
			v.Layer = nil
		}
		if layer = v.Layer; layer != nil && !caps.Bounded {
			return Result{}, errors.New("sandbox: a view's layer cannot be mounted here")
		}
		home := privateHome(v.Root)
		cache := ""
		if spec.Cache != "" || layer != nil {
			cache = filepath.Join(home, ".cache")
		}
		hs.Env = environ(spec.Env, home, "/tmp", cache, caps.modCache)
		hs.Namespaces, hs.OwnNetwork, hs.View, hs.Dir = true, !spec.Network, v, v.Root
		hs.Root = rootPlan(toolchains, v, home, spec.Cache, limits)
		hs.Landlock.RW = []string{v.Root, "/tmp", home, "/dev/shm", "/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}
		switch {
		case layer != nil && spec.Cache == "":
			quota = nil // all bounded by tmpfs mounts
		case layer != nil:
		case v.Copy != "":
			quota.tmpfs, quota.grown = []string{"/tmp"}, []string{v.Copy} // home is on /tmp's tmpfs
		default:
			quota.tmpfs, quota.counted = []string{"/tmp"}, append(quota.counted, v.Upper, v.Work)
		}
	} else {
		scratch, home, tmp, err := newScratch()
		if err != nil {
			return Result{}, err
		}
		defer RemoveTree(scratch)
		hs.Env = environ(spec.Env, home, tmp, spec.Cache, caps.modCache)
		hs.Dir = spec.View.Copy
		hs.Landlock.RW = []string{home, tmp, spec.Cache, spec.View.Copy, "/dev/null"}
		if spec.GitDir != "" {
			hs.Env = append(hs.Env, "GIT_DIR="+spec.GitDir, "GIT_WORK_TREE="+spec.View.Copy)
			hs.Landlock.RO = append(hs.Landlock.RO, spec.GitDir)
		}
		hs.Landlock.NoTCP = !spec.Network
		quota.counted = append(quota.counted, scratch)
		quota.grown = []string{spec.View.Copy}
	}
	if !cgroupsUsable.Load() {
		// RLIMIT_NPROC counts the user's processes (and spares root), so it is
		// only the fallback; likewise RLIMIT_DATA for memory.
		hs.Rlimits = append(hs.Rlimits, rlimit{unix.RLIMIT_NPROC, uint64(limits.Processes)}, rlimit{unix.RLIMIT_DATA, uint64(limits.Memory)})
	}
	if quota != nil {
		quota.start()
	}
	start := time.Now()
	report, err := startHelper(ctx, hs, flags, &limits, layer, quota, spec.Stdout, spec.Stderr)
	res := Result{Duration: time.Since(start)}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return res, ctx.Err()
	case errors.Is(err, ErrDiskLimit):
		res.ExitCode, res.Exceeded = 128+int(syscall.SIGKILL), fmt.Sprintf("wrote more than %d MiB, the sandbox's disk limit", limits.Disk>>20)
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

// canDropGroups reports whether this process may drop supplementary groups
// in the helper: only with CAP_SETGID over its own user namespace (root).
// Others keep them, as the kernel will not let an unprivileged user shed a
// group (a negative group permission could be bypassed); Caps reports them.
func canDropGroups() bool { return os.Geteuid() == 0 }
