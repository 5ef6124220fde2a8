package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// helperName is argv[0] of the re-executed binary in helper mode. Nothing
// else starts this binary with it, so no flag or environment can trigger it.
const helperName = "agent-lsp-sandbox-helper"

// The helper's extra files: the spec comes in on fd 3, a set-up failure goes
// out on fd 4 (an empty fd 4 means the command ran), and the view's layer
// goes either way on fd 5 (layerFD).
const (
	specFD   = 3
	reportFD = 4
)

// exitSetupFailed is the helper's exit code when isolation could not be set up.
const exitSetupFailed = 125

// helperSpec is what the parent sends the helper: the command's World
// whole, which it carries out, and where the view's layer comes from.
type helperSpec struct {
	Probe bool // only report what works (in World.View); run nothing
	World World
	Layer *layerSpec // the view's layer, if it has one (full level)
}

// rlimitResource is the resource of each of a World's Rlimits.
var rlimitResource = map[string]int{
	"FSIZE": unix.RLIMIT_FSIZE, "CORE": unix.RLIMIT_CORE, "CPU": unix.RLIMIT_CPU,
	"NPROC": unix.RLIMIT_NPROC, "DATA": unix.RLIMIT_DATA,
}

func init() {
	if len(os.Args) > 0 && os.Args[0] == helperName {
		os.Exit(helperMain())
	}
}

func helperMain() int {
	// The command must not inherit the pipes to the parent (it could fake a report).
	unix.CloseOnExec(specFD)
	unix.CloseOnExec(reportFD)
	unix.CloseOnExec(layerFD)
	report := os.NewFile(reportFD, "report")
	var spec helperSpec
	if err := json.NewDecoder(os.NewFile(specFD, "spec")).Decode(&spec); err != nil {
		fmt.Fprintf(report, "reading the sandbox spec: %v", err)
		return exitSetupFailed
	}
	if spec.Probe {
		fmt.Fprint(report, probeInside(spec))
		return 0
	}
	// A server's start is known to its caller by the report's end: the
	// report is closed once the server runs.
	code, err := helperRun(spec, func() { report.Close() })
	if err != nil {
		fmt.Fprint(report, err)
		return exitSetupFailed
	}
	return code
}

// helperRun isolates, starts the command from a thread that carries the
// Landlock domain, the seccomp filter, no_new_privs, no capabilities and a
// fresh session keyring, calls started if it is a server's (Spec.Server),
// and reaps every process (it is pid 1 at full level) until the command
// exits. A server gets the helper's stdin, a command /dev/null.
func helperRun(spec helperSpec, started func()) (int, error) {
	w := spec.World
	if len(w.Namespaces) > 0 {
		var layer *os.File
		if spec.Layer != nil {
			var err error
			if layer, err = helperLayer(spec.Layer); err != nil {
				return 0, err
			}
		}
		err := buildRoot(w.Mounts, w.View, layer)
		if layer != nil {
			layer.Close()
		}
		if err != nil {
			return 0, err
		}
	}
	if slices.Contains(w.Namespaces, "net") {
		// In a network namespace of its own: bring its loopback up.
		if err := loopbackUp(); err != nil {
			return 0, fmt.Errorf("loopback: %w", err)
		}
	}
	for _, l := range w.Rlimits {
		resource, ok := rlimitResource[l.Name]
		if !ok {
			return 0, fmt.Errorf("rlimit %s: no such resource", l.Name)
		}
		if err := unix.Setrlimit(resource, &unix.Rlimit{Cur: l.Value, Max: l.Value}); err != nil {
			return 0, fmt.Errorf("rlimit %s: %w", l.Name, err)
		}
	}
	// Credentials, Landlock, seccomp and no_new_privs are per thread: the
	// command is forked from this one, so it inherits them; the helper's
	// other threads don't matter.
	runtime.LockOSThread()
	if err := dropCredentials(w.DropGroups); err != nil {
		return 0, err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("no_new_privs: %w", err)
	}
	if w.Landlock != nil {
		if err := w.Landlock.restrictThread(); err != nil {
			return 0, fmt.Errorf("landlock: %w", err)
		}
	}
	closeInherited()
	if w.Filter != nil {
		if err := installSeccomp(*w.Filter); err != nil {
			return 0, err
		}
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	stdin := null.Fd()
	if w.Server {
		stdin = 0
	}
	pid, err := syscall.ForkExec(w.Argv[0], w.Argv, &syscall.ProcAttr{
		Dir: w.Dir, Env: w.Env,
		Files: []uintptr{stdin, 1, 2},
		// A session of its own: no controlling terminal to type into
		// (TIOCSTI) or read from when agent-lsp runs in one. Below full, no
		// pid namespace ends the command with the helper: at least the
		// command itself dies with it (its session's id is its group's).
		Sys: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return 0, fmt.Errorf("starting %s: %w", w.Argv[0], err)
	}
	null.Close()
	if w.Server {
		started()
	}
	return reapUntil(pid)
}

// dropCredentials leaves the calling thread nothing inherited to act with:
// a new, empty session keyring (the user's keys are not the command's), no
// supplementary groups where they can be dropped, and no capabilities now
// or after exec (an empty bounding set, and root in the user namespace
// gets none from exec).
func dropCredentials(dropGroups bool) error {
	if _, _, errno := unix.RawSyscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0); errno != 0 {
		return fmt.Errorf("new session keyring: %w", errno)
	}
	if dropGroups {
		if _, _, errno := unix.RawSyscall(unix.SYS_SETGROUPS, 0, 0, 0); errno != 0 {
			return fmt.Errorf("dropping supplementary groups: %w", errno)
		}
	}
	// Without CAP_SETPCAP (an unprivileged user below full) there is nothing
	// to drop: these fail harmlessly.
	for c := 0; c <= 63; c++ {
		if unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0) == unix.EINVAL {
			break
		}
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	// SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP and SECBIT_NO_CAP_AMBIENT_RAISE,
	// each with its lock bit (linux/securebits.h).
	const secureBits = 0b11001111
	_ = unix.Prctl(unix.PR_SET_SECUREBITS, secureBits, 0, 0, 0)
	return nil
}

// closeInherited marks every descriptor above stdio close-on-exec, so the
// command inherits none of what the helper or agent-lsp's own parent (an
// editor) left open without it.
func closeInherited() {
	const closeRangeCloexec = 1 << 2 // CLOSE_RANGE_CLOEXEC, Linux 5.11
	if unix.CloseRange(3, ^uint(0), closeRangeCloexec) == nil {
		return
	}
	entries, _ := os.ReadDir("/proc/self/fd")
	for _, e := range entries {
		var fd int
		if _, err := fmt.Sscan(e.Name(), &fd); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}

// reapUntil waits for every child (orphans are re-parented to pid 1) until
// pid exits, and returns its exit code, 128+signal when killed like a shell.
func reapUntil(pid int) (int, error) {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("wait: %w", err)
		}
		if got != pid {
			continue
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ws.ExitStatus(), nil
	}
}

// mountOverlay mounts the view's overlay on target: the staged changes over
// the workspace, and the run's upper dir over both; without an upper dir
// (a server's view), the overlay is read-only.
func mountOverlay(v View, target string) error {
	lower := overlayEscape(v.Lower)
	if v.Staged != "" {
		lower = overlayEscape(v.Staged) + ":" + lower
	}
	opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s,userxattr", lower, overlayEscape(v.Upper), overlayEscape(v.Work))
	if v.Upper == "" {
		opts = fmt.Sprintf("lowerdir=%s,userxattr", lower)
	}
	if err := unix.Mount("overlay", target, "overlay", 0, opts); err != nil {
		return fmt.Errorf("overlay on %s: %w", target, err)
	}
	return nil
}

// overlayEscape escapes what separates overlayfs's options and layers.
func overlayEscape(p string) string {
	return strings.NewReplacer(`\`, `\\`, `,`, `\,`, `:`, `\:`).Replace(p)
}

// loopbackUp brings lo up in the new network namespace, so a test that
// listens on 127.0.0.1 works; the host's loopback stays out of reach.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// probeInside says which parts of the full level work in these namespaces:
// "overlay" when an overlay mounts, "copy" when only a bind mount does;
// when asked to make a layer it tries to make and send it first. Given one (made
// by another helper), it mounts the view as a command would, over the
// layer's clone, binds the layer's cache and writes there: "bounded" when
// all of that works.
func probeInside(spec helperSpec) string {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return "error: " + err.Error()
	}
	v := spec.World.View
	merged := filepath.Join(filepath.Dir(v.Upper), "merged")
	if spec.Layer != nil {
		layer, err := helperLayer(spec.Layer)
		switch {
		case err != nil && !spec.Layer.Make:
			return "error: " + err.Error()
		case err != nil: // no layer here: the overlay may still mount
		case spec.Layer.Make:
			layer.Close()
		default:
			defer layer.Close()
			return probeLayer(v, merged, layer)
		}
	}
	if err := mountOverlay(v, merged); err == nil {
		return "overlay"
	}
	if err := unix.Mount(v.Lower, merged, "", unix.MS_BIND, ""); err != nil {
		return "error: " + err.Error()
	}
	return "copy"
}

// probeLayer mounts the view on merged with layer's clone as its upper
// layer, binds the layer's cache on v.Staged, and writes in both.
func probeLayer(v View, merged string, layer *os.File) string {
	clone, err := cloneLayer(layer)
	if err != nil {
		return "error: " + err.Error()
	}
	defer clone.Close()
	v.Root = merged
	sources, err := openSources([]Mount{{Kind: MountLayer, Target: v.Staged, Source: "cache"}}, clone)
	if err != nil {
		return "error: " + err.Error()
	}
	defer sources[0].Close()
	view, err := openView(v, clone)
	if err != nil {
		return "error: " + err.Error()
	}
	view.Close()
	if err := bindAt(sources[0], v.Staged, true); err != nil {
		return "error: binding the layer's cache: " + err.Error()
	}
	for _, p := range []string{merged, v.Staged} {
		if err := os.WriteFile(filepath.Join(p, "probe"), nil, 0o600); err != nil {
			return "error: " + err.Error()
		}
	}
	return "bounded"
}
