package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// helperName is argv[0] of the re-executed binary in helper mode. Nothing
// else starts this binary with it, so no flag or environment can trigger it.
const helperName = "agent-lsp-sandbox-helper"

// The helper's extra files: the spec comes in on fd 3, a set-up failure goes
// out on fd 4 (an empty fd 4 means the command ran).
const (
	specFD   = 3
	reportFD = 4
)

// exitSetupFailed is the helper's exit code when isolation could not be set up.
const exitSetupFailed = 125

// helperSpec is what the parent sends the helper.
type helperSpec struct {
	Probe      bool // only report what works; run nothing
	Argv       []string
	Dir        string
	Env        []string
	Namespaces bool // set up the mount namespace (full level)
	OwnNetwork bool // in a network namespace of its own: bring its loopback up
	View       View
	ReadOnly   []string // paths under View.Root made read-only (.git)
	Landlock   *landlockRules
	Rlimits    []rlimit
}

type rlimit struct {
	Resource int
	Value    uint64
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
	code, err := helperRun(spec)
	if err != nil {
		fmt.Fprint(report, err)
		return exitSetupFailed
	}
	return code
}

// helperRun isolates, starts the command from a thread that carries the
// Landlock domain and no_new_privs, and reaps every process (it is pid 1 at
// full level) until the command exits.
func helperRun(spec helperSpec) (int, error) {
	if spec.Namespaces {
		if err := setUpMounts(spec); err != nil {
			return 0, err
		}
	}
	if spec.OwnNetwork {
		if err := loopbackUp(); err != nil {
			return 0, fmt.Errorf("loopback: %w", err)
		}
	}
	for _, l := range spec.Rlimits {
		if err := unix.Setrlimit(l.Resource, &unix.Rlimit{Cur: l.Value, Max: l.Value}); err != nil {
			return 0, fmt.Errorf("rlimit %d: %w", l.Resource, err)
		}
	}
	// Landlock and no_new_privs are per thread: the command is forked from
	// this one, so it inherits them; the helper's other threads don't matter.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("no_new_privs: %w", err)
	}
	if spec.Landlock != nil {
		if err := spec.Landlock.restrictThread(); err != nil {
			return 0, fmt.Errorf("landlock: %w", err)
		}
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	pid, err := syscall.ForkExec(spec.Argv[0], spec.Argv, &syscall.ProcAttr{
		Dir: spec.Dir, Env: spec.Env,
		Files: []uintptr{null.Fd(), 1, 2},
		// Below full, no pid namespace ends the command with the helper:
		// at least the command itself dies with it.
		Sys: &syscall.SysProcAttr{Setpgid: !spec.Namespaces, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return 0, fmt.Errorf("starting %s: %w", spec.Argv[0], err)
	}
	null.Close()
	return reapUntil(pid)
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

// setUpMounts builds the command's view of the file system in the new mount
// namespace: nothing propagates back, the workspace view is mounted on the
// workspace's own path, .git is read-only, /proc shows only this pid
// namespace and /dev/shm is private.
func setUpMounts(spec helperSpec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	// .git and the like are bound read-only from the originals, opened before
	// the view hides them.
	originals := make([]*os.File, 0, len(spec.ReadOnly))
	for _, p := range spec.ReadOnly {
		f, err := os.OpenFile(p, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // nothing there to protect
		}
		defer f.Close()
		originals = append(originals, f)
	}
	v := spec.View
	if v.Copy != "" {
		if err := unix.Mount(v.Copy, v.Root, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("binding the copy on %s: %w", v.Root, err)
		}
	} else if err := mountOverlay(v, v.Root); err != nil {
		return err
	}
	for _, f := range originals {
		if err := bindReadOnly(f); err != nil {
			return err
		}
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=64m"); err != nil {
			return fmt.Errorf("mounting /dev/shm: %w", err)
		}
	}
	return nil
}

func mountOverlay(v View, target string) error {
	opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s,userxattr", v.Lower, v.Upper, v.Work)
	if err := unix.Mount("overlay", target, "overlay", 0, opts); err != nil {
		return fmt.Errorf("overlay on %s: %w", target, err)
	}
	return nil
}

// bindReadOnly mounts the original (an O_PATH file) read-only on the same
// path of the view, which must exist there.
func bindReadOnly(original *os.File) error {
	p := original.Name()
	src := fmt.Sprintf("/proc/self/fd/%d", original.Fd())
	if err := unix.Mount(src, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("binding %s: %w", p, err)
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV)
	if err := unix.Mount("", p, "", flags, ""); err != nil {
		return fmt.Errorf("making %s read-only: %w", p, err)
	}
	return nil
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
// "overlay" when an overlay mounts, "copy" when only a bind mount does.
func probeInside(spec helperSpec) string {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return "error: " + err.Error()
	}
	v := spec.View
	merged := filepath.Join(filepath.Dir(v.Upper), "merged")
	if err := mountOverlay(v, merged); err == nil {
		return "overlay"
	}
	if err := unix.Mount(v.Lower, merged, "", unix.MS_BIND, ""); err != nil {
		return "error: " + err.Error()
	}
	return "copy"
}
