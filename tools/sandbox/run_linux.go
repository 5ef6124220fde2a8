package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// nsFlags are the namespaces of the full level (the network one is left out
// when the user opted in to network access): cloneFlags(namespaceNames).
const nsFlags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS

// namespaceFlag is clone's flag for each of a World's Namespaces.
var namespaceFlag = map[string]uintptr{
	"user": syscall.CLONE_NEWUSER, "mount": syscall.CLONE_NEWNS, "pid": syscall.CLONE_NEWPID,
	"net": syscall.CLONE_NEWNET, "ipc": syscall.CLONE_NEWIPC, "uts": syscall.CLONE_NEWUTS,
}

// cloneFlags are the clone flags that make the namespaces named.
func cloneFlags(names []string) (uintptr, error) {
	var flags uintptr
	for _, n := range names {
		f, ok := namespaceFlag[n]
		if !ok {
			return 0, fmt.Errorf("sandbox: no namespace %q", n)
		}
		flags |= f
	}
	return flags, nil
}

// probe finds the level on Linux: Landlock and cgroups, then, unless upTo
// is landlock, whether the full level's namespaces and views work.
func probe(upTo Level) Caps {
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
	if upTo == Landlock {
		c.Level = Landlock
		return c
	}
	mounts, bounded, err := probeNamespaces(usualKind(c, nsFlags))
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
// The helpers are of kind, the full level's commands' (usualKind): the
// spare the probe leaves is theirs.
func probeNamespaces(kind helperKind) (mounts string, bounded bool, err error) {
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
	report, err := startHelper(ctx, helperSpec{Probe: true, World: World{View: v}}, kind, nil, layer, nil, &out, &out)
	if err != nil && report == "" {
		return "", false, err
	}
	switch report {
	case "overlay":
		// Made by the first helper (or not: then the second reports so).
		second, _ := startHelper(ctx, helperSpec{Probe: true, World: World{View: v}}, kind, nil, layer, nil, &out, &out)
		return report, second == "bounded", nil
	case "copy":
		return report, false, nil
	}
	return "", false, fmt.Errorf("%s %s", report, strings.TrimSpace(out.String()))
}

// start starts a server's world: in a helper at levels full and
// landlock, else as a plain process.
func start(ctx context.Context, caps Caps, spec Spec) (*Process, error) {
	w, done, err := commandWorld(caps, spec)
	if err != nil {
		done()
		return nil, err
	}
	if w.Level == None {
		return startPlain(w, spec.Stderr, done)
	}
	return startServerHelper(ctx, w, spec.Group, spec.Stderr, done)
}

func run(ctx context.Context, caps Caps, spec Spec) (Result, error) {
	w, done, err := commandWorld(caps, spec)
	defer done()
	if err != nil {
		return Result{}, err
	}
	if w.Level == None {
		return runPlain(ctx, w, spec.Stdout, spec.Stderr)
	}
	return runHelper(ctx, w, spec.Stdout, spec.Stderr)
}

// runHelper runs world w (level full or landlock) in a helper: in the
// namespaces it names, bounded by its cgroup (startHelper) and measured
// where it says so.
func runHelper(ctx context.Context, w World, stdout, stderr io.Writer) (Result, error) {
	kind, err := kindOf(w)
	if err != nil {
		return Result{}, err
	}
	var quota *diskQuota
	if d := w.Disk; d != nil {
		quota = &diskQuota{limit: d.Limit, counted: d.Counted, grown: d.Grown, tmpfs: d.Tmpfs}
		quota.start()
	}
	start := time.Now()
	report, err := startHelper(ctx, helperSpec{World: w}, kind, &w.Limits, w.View.Layer, quota, stdout, stderr)
	res := Result{Duration: time.Since(start)}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return helperResult(res, w, report, err)
}

// helperResult is how a helper's command ended, from the helper's report
// and its exit (err).
func helperResult(res Result, w World, report string, err error) (Result, error) {
	switch {
	case errors.Is(err, ErrDiskLimit):
		res.ExitCode, res.Exceeded = 128+int(syscall.SIGKILL), fmt.Sprintf("wrote more than %d MiB, the sandbox's disk limit", w.Limits.Disk>>20)
		return res, nil
	case report != "":
		return res, fmt.Errorf("sandbox: %s", report)
	}
	if res.ExitCode, err = exitStatus(err); err != nil {
		return res, fmt.Errorf("sandbox: %w", err)
	}
	return res, nil
}
