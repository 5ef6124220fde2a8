//go:build linux && (amd64 || arm64)

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
	"golang.org/x/sys/unix"
)

// The filter is tested by effect, never in this process: a child (this test
// binary again, TestSeccompChild) locks its thread, sets no_new_privs,
// installs the filter and makes each call from that thread, as the helper
// does before it forks the command. A control child makes the same calls
// without the filter, so an EPERM under the filter is the filter's.

const (
	// seccompChildEnv is "mode:set": mode is filter (the full level's
	// filter), nounix (below full), offline (below full, network off) or
	// none (the control); set names the
	// probes (main or foreign).
	seccompChildEnv = "AGENT_LSP_TEST_SECCOMP_CHILD"
	// seccompOutEnv is the file the child writes its report to.
	seccompOutEnv = "AGENT_LSP_TEST_SECCOMP_OUT"
)

// seccompProbe is one call the child makes from the filtered thread.
type seccompProbe struct {
	name string
	// want is the answer under the full level's filter: an errno's name
	// (EPERM: refused) or "ok".
	want string
	// filterOnly probes are not made by the control: they would change the
	// control child (PTRACE_TRACEME) or cost time and prove nothing there.
	filterOnly bool
	call       func() string
}

type seccompReport struct {
	Install string // "ok" or why the filter could not be installed
	Results map[string]string
}

// TestSeccompChild is the child the TestSeccomp* tests start; on its own it
// does nothing.
func TestSeccompChild(t *testing.T) {
	spec := os.Getenv(seccompChildEnv)
	if spec == "" {
		t.Skip("the child of the TestSeccomp* tests; runs only when they start it")
	}
	mode, set, _ := strings.Cut(spec, ":")
	// Never unlocked: the filtered thread ends with this test, so no other
	// goroutine ever runs on it.
	runtime.LockOSThread()
	rep := seccompReport{Results: map[string]string{}}
	err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	if err == nil {
		switch mode {
		case "filter":
			err = installSeccomp(Filter{})
		case "nounix":
			err = installSeccomp(Filter{NoUnixSockets: true})
		case "offline":
			err = installSeccomp(Filter{NoUnixSockets: true, NoInetSockets: true})
		case "none":
		default:
			err = fmt.Errorf("unknown mode %q", mode)
		}
	}
	rep.Install = errnoString(err)
	if err == nil {
		for _, p := range seccompProbes(set) {
			if mode == "none" && p.filterOnly {
				continue
			}
			rep.Results[p.name] = p.call()
		}
	}
	data, err := json.Marshal(rep)
	if err == nil {
		err = os.WriteFile(os.Getenv(seccompOutEnv), data, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// seccompRuns caches each child's report: the tests share the children.
var seccompRuns = struct {
	sync.Mutex
	m map[string]*seccompRun
}{m: map[string]*seccompRun{}}

type seccompRun struct {
	rep    seccompReport
	err    error
	signal syscall.Signal // what killed the child, if a signal did
	// made says the child's foreign-ABI probe made its directory: the
	// call ran, whatever the child reported or however it ended.
	made bool
}

// foreignArchMade is the directory the foreign-ABI probe asks for, in the
// child's dir.
const foreignArchMade = "made-by-int80"

// seccompChild runs the child in mode with the probes of set, once per test
// binary, and returns its report.
func seccompChild(t *testing.T, mode, set string) *seccompRun {
	t.Helper()
	if status, err := os.ReadFile("/proc/self/status"); err == nil && !strings.Contains(string(status), "\nSeccomp:") {
		t.Skip("this kernel has no seccomp (no Seccomp field in /proc/self/status: built without CONFIG_SECCOMP)")
	}
	seccompRuns.Lock()
	defer seccompRuns.Unlock()
	key := mode + ":" + set
	if r := seccompRuns.m[key]; r != nil {
		return r
	}
	r := &seccompRun{}
	seccompRuns.m[key] = r
	// Not t.TempDir: the report outlives this test for the next one.
	dir, err := os.MkdirTemp("", "agent-lsp-seccomp-")
	if err != nil {
		r.err = err
		return r
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestSeccompChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), seccompChildEnv+"="+key, seccompOutEnv+"="+out,
		// A child killed by a signal runs no clean-up: its cache and temp
		// dirs are here (and one that ends well removes its cache).
		toolstest.ChildCacheEnv+"="+filepath.Join(dir, "cache"), "TMPDIR="+dir)
	cmd.Dir = dir
	cmd.WaitDelay = time.Second
	output, err := cmd.CombinedOutput()
	if _, serr := os.Lstat(filepath.Join(dir, foreignArchMade)); serr == nil {
		r.made = true
	}
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signal = ws.Signal()
		}
	}
	data, rerr := os.ReadFile(out)
	if err != nil || rerr != nil {
		r.err = fmt.Errorf("the %s child: %v %v\n%s", key, err, rerr, output)
		return r
	}
	r.err = json.Unmarshal(data, &r.rep)
	return r
}

// seccompResults is the report of a child that ran its probes; it skips
// the test where the kernel refuses the filter.
func seccompResults(t *testing.T, mode, set string) map[string]string {
	t.Helper()
	r := seccompChild(t, mode, set)
	if r.err != nil {
		t.Fatal(r.err)
	}
	switch r.rep.Install {
	case "ok":
		return r.rep.Results
	case "EINVAL":
		t.Skipf("the kernel refuses seccomp filters (EINVAL: built without CONFIG_SECCOMP_FILTER)")
	}
	t.Fatalf("installing the filter (%s): %s", mode, r.rep.Install)
	return nil
}

func TestSeccompRefusesEachDeniedCall(t *testing.T) {
	inside := seccompResults(t, "filter", "main")
	outside := seccompResults(t, "none", "main")
	for _, p := range seccompProbes("main") {
		if p.want == "ok" || strings.HasPrefix(p.name, "allowed:") {
			continue
		}
		got := inside[p.name]
		if got != p.want {
			t.Errorf("%s: %s under the filter, want %s (control: %s)", p.name, got, p.want, outside[p.name])
		}
		if !p.filterOnly {
			t.Logf("%-28s filter: %-7s control: %s", p.name, got, outside[p.name])
		}
	}
	// The control proves the detector: outside, the session keyring is
	// there to read and add to.
	for _, name := range []string{"keyctl", "add_key"} {
		if got := outside[name]; got != "ok" {
			if got == "EPERM" && alreadyFiltered() {
				t.Skipf("control: %s is refused outside the filter too (%s) and this process runs under a seccomp filter of its own (a container's): the control proves nothing here", name, got)
			}
			t.Errorf("control: %s without the filter: %s, want ok", name, got)
		}
	}
	// Every probe that the kernel answers otherwise outside shows the
	// filter, not the kernel, refused it inside.
	proven := 0
	for _, p := range seccompProbes("main") {
		if p.want == "EPERM" && !p.filterOnly && outside[p.name] != "EPERM" {
			proven++
		}
	}
	t.Logf("%d refusals differ from the kernel's own answer outside the filter", proven)
}

func TestSeccompAllowsOrdinaryWork(t *testing.T) {
	for _, mode := range []string{"filter", "nounix", "offline"} {
		inside := seccompResults(t, mode, "main")
		for _, p := range seccompProbes("main") {
			if !strings.HasPrefix(p.name, "allowed:") {
				continue
			}
			want := p.want
			if mode != "filter" && p.name == "allowed: socket(AF_UNIX)" {
				want = "EPERM"
			}
			if mode == "offline" && strings.HasPrefix(p.name, "allowed: socket(AF_INET") {
				want = "EPERM" // UDP too: what Landlock leaves open
			}
			if got := inside[p.name]; got != want && (got != "missing" || !strings.HasPrefix(p.name, "allowed: program")) {
				t.Errorf("%s: %s under the %s filter, want %s", p.name, got, mode, want)
			}
		}
	}
}

// TestSeccompForeignArchitecture makes a call by the i386 ABI (int 0x80)
// under the filter. What matters is that the call never runs, judged by
// its effect (the directory it asks for is not made); how the kernel
// refuses it is the kernel's choice: the filter's EPERM, or the child
// stopped by SIGSEGV at the instruction (seen on some 6.18 kernels of the
// same machine kind). A child that dies any other way crashed of the
// test's own making and fails the test.
func TestSeccompForeignArchitecture(t *testing.T) {
	probes := seccompProbes("foreign")
	if len(probes) == 0 {
		t.Skipf("%s: a 64-bit process cannot make a 32-bit compat call without exec'ing a 32-bit binary; the filter's arch check is the same instruction as on amd64", runtime.GOARCH)
	}
	name := probes[0].name
	control := seccompChild(t, "none", "foreign")
	switch {
	case control.signal == syscall.SIGSEGV && !control.made:
		t.Skipf("this kernel has no 32-bit emulation: int 0x80 stopped the control child too (%v) and the call did not run", control.signal)
	case control.err != nil:
		t.Fatalf("control: %v", control.err)
	case control.rep.Results[name] != "ok" || !control.made:
		t.Fatalf("control: %s: %s without the filter, made its directory: %v; want ok and made", name, control.rep.Results[name], control.made)
	}
	filtered := seccompChild(t, "filter", "foreign")
	if filtered.made {
		t.Errorf("%s ran under the filter: its directory was made", name)
	}
	switch {
	case filtered.signal == syscall.SIGSEGV:
		t.Logf("%s: the kernel stopped the filtered child at the instruction (%v); the call did not run; control: ok", name, filtered.signal)
	case filtered.err != nil:
		t.Fatalf("the filtered child crashed (not at the int 0x80: that would be SIGSEGV): %v", filtered.err)
	case filtered.rep.Install != "ok":
		t.Fatalf("installing the filter: %s", filtered.rep.Install)
	case filtered.rep.Results[name] != probes[0].want:
		t.Errorf("%s: %s under the filter, want %s (control: ok)", name, filtered.rep.Results[name], probes[0].want)
	default:
		t.Logf("%s: the filter returned %s; the call did not run; control: ok", name, filtered.rep.Results[name])
	}
}

// alreadyFiltered says whether this process runs under a seccomp filter.
func alreadyFiltered() bool {
	status, _ := os.ReadFile("/proc/self/status")
	return strings.Contains(string(status), "\nSeccomp:\t2")
}

// BenchmarkSeccompInstall measures installSeccomp (assembling the program
// and loading it), each on a thread of its own that ends afterwards, so
// that this process keeps no filter.
func BenchmarkSeccompInstall(b *testing.B) {
	var total time.Duration
	for b.Loop() {
		took := make(chan time.Duration)
		errs := make(chan error, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
			if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
				errs <- err
				return
			}
			start := time.Now()
			err := installSeccomp(Filter{})
			d := time.Since(start)
			if err != nil {
				errs <- err
				return
			}
			took <- d
		}()
		select {
		case d := <-took:
			total += d
		case err := <-errs:
			b.Skipf("the kernel refuses the filter: %v", err)
		}
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/install")
}

// The probes. Each call is made so that it fails harmlessly where it reaches
// the kernel, even as root (a path that does not exist, a bad descriptor or
// flag, the process's own keyring), so the control's answer is the kernel's
// and nothing on the machine changes.

const noPath = "/nonexistent-agent-lsp-seccomp"

// Personas (linux/personality.h) and syslog's action (linux/syslog.h).
const (
	perLinux               = 0
	perLinux32             = 0x0008
	addrNoRandomize        = 0x0040000
	syslogActionSizeBuffer = 10
)

func seccompProbes(set string) []seccompProbe {
	if set == "foreign" {
		return foreignArchProbes()
	}
	probes := []seccompProbe{
		// The session keyring.
		{name: "keyctl", want: "EPERM", call: func() string {
			_, err := unix.KeyctlInt(unix.KEYCTL_GET_KEYRING_ID, unix.KEY_SPEC_SESSION_KEYRING, 0, 0, 0)
			return errnoString(err)
		}},
		{name: "add_key", want: "EPERM", call: func() string {
			// The process keyring dies with the child.
			_, err := unix.AddKey("user", "agent-lsp-seccomp-probe", []byte("x"), unix.KEY_SPEC_PROCESS_KEYRING)
			return errnoString(err)
		}},
		{name: "request_key", want: "EPERM", call: func() string {
			// No callout: the kernel answers ENOKEY without starting anything.
			typ, desc := cstr("user"), cstr("agent-lsp-seccomp-no-such-key")
			_, _, errno := unix.Syscall6(unix.SYS_REQUEST_KEY, uintptr(unsafe.Pointer(typ)), uintptr(unsafe.Pointer(desc)), 0, 0, 0, 0)
			return errnoString(errno)
		}},
		// Other processes.
		{name: "ptrace(PTRACE_TRACEME)", want: "EPERM", filterOnly: true, call: func() string {
			return rawCall(unix.SYS_PTRACE, unix.PTRACE_TRACEME)
		}},
		{name: "ptrace(PTRACE_PEEKDATA)", want: "EPERM", call: func() string {
			return rawCall(unix.SYS_PTRACE, unix.PTRACE_PEEKDATA, 0x7ffffff0, 0, 0)
		}},
		{name: "process_vm_readv", want: "EPERM", call: func() string {
			buf := make([]byte, 8)
			_, err := unix.ProcessVMReadv(0x7ffffff0, []unix.Iovec{{Base: &buf[0], Len: 8}}, []unix.RemoteIovec{{Base: 0x1000, Len: 8}}, 0)
			return errnoString(err)
		}},
		{name: "process_vm_writev", want: "EPERM", call: func() string {
			buf := make([]byte, 8)
			_, err := unix.ProcessVMWritev(0x7ffffff0, []unix.Iovec{{Base: &buf[0], Len: 8}}, []unix.RemoteIovec{{Base: 0x1000, Len: 8}}, 0)
			return errnoString(err)
		}},
		// The mount table.
		{name: "mount", want: "EPERM", call: func() string {
			return errnoString(unix.Mount("none", noPath, "tmpfs", 0, ""))
		}},
		{name: "umount2", want: "EPERM", call: func() string { return errnoString(unix.Unmount(noPath, 0)) }},
		{name: "pivot_root", want: "EPERM", call: func() string { return errnoString(unix.PivotRoot(noPath, noPath)) }},
		{name: "chroot", want: "EPERM", call: func() string { return errnoString(unix.Chroot(noPath)) }},
		{name: "move_mount", want: "EPERM", call: func() string {
			return errnoString(unix.MoveMount(-1, noPath, -1, noPath+"2", 0))
		}},
		{name: "open_tree", want: "EPERM", call: func() string { return fdResult(unix.OpenTree(-1, noPath, 0)) }},
		{name: "fsopen", want: "EPERM", call: func() string { return fdResult(unix.Fsopen("agent-lsp-no-such-fs", 0)) }},
		{name: "fsmount", want: "EPERM", call: func() string { return fdResult(unix.Fsmount(-1, 0, 0)) }},
		{name: "fsconfig", want: "EPERM", call: func() string { return errnoString(unix.FsconfigSetString(-1, "source", "none")) }},
		{name: "fspick", want: "EPERM", call: func() string { return fdResult(unix.Fspick(-1, noPath, 0)) }},
		{name: "mount_setattr", want: "EPERM", call: func() string {
			return errnoString(unix.MountSetattr(-1, noPath, 0, &unix.MountAttr{}))
		}},
		// Namespaces. unshare(CLONE_NEWUSER) from a process with threads is
		// EINVAL outside; unshare(0) does nothing outside.
		{name: "unshare(CLONE_NEWUSER)", want: "EPERM", call: func() string { return errnoString(unix.Unshare(unix.CLONE_NEWUSER)) }},
		{name: "unshare(0)", want: "EPERM", call: func() string { return errnoString(unix.Unshare(0)) }},
		{name: "setns", want: "EPERM", call: func() string { return errnoString(unix.Setns(-1, 0)) }},
		// clone3's flags are in memory BPF cannot read: ENOSYS, and libc
		// falls back to clone. A NULL argument is EINVAL outside.
		{name: "clone3", want: "ENOSYS", call: func() string { return rawCall(unix.SYS_CLONE3, 0, 0) }},
		// Kernel code and state.
		{name: "init_module", want: "EPERM", call: func() string {
			return errnoString(unix.InitModule([]byte("not a module"), ""))
		}},
		{name: "finit_module", want: "EPERM", call: func() string { return errnoString(unix.FinitModule(-1, "", 0)) }},
		{name: "delete_module", want: "EPERM", call: func() string {
			return errnoString(unix.DeleteModule("agent_lsp_no_such_module", unix.O_NONBLOCK))
		}},
		{name: "kexec_load", want: "EPERM", call: func() string {
			return rawCall(unix.SYS_KEXEC_LOAD, 0, 0, 0, 0xffff0000) // no such flags: EINVAL
		}},
		{name: "kexec_file_load", want: "EPERM", call: func() string {
			return rawCall(unix.SYS_KEXEC_FILE_LOAD, ^uintptr(0), ^uintptr(0), 0, 0, 0xffff0000)
		}},
		{name: "bpf", want: "EPERM", call: func() string { return rawCall(unix.SYS_BPF, 999, 0, 0) }},
		{name: "perf_event_open", want: "EPERM", call: func() string {
			return rawCall(unix.SYS_PERF_EVENT_OPEN, 0, 0, ^uintptr(0), ^uintptr(0), 0)
		}},
		{name: "userfaultfd", want: "EPERM", call: func() string {
			// UFFD_USER_MODE_ONLY and a flag that does not exist: EINVAL.
			return rawCall(unix.SYS_USERFAULTFD, 1|2)
		}},
		{name: "io_uring_setup", want: "EPERM", call: func() string { return rawCall(unix.SYS_IO_URING_SETUP, 1, 0) }},
		{name: "io_uring_enter", want: "EPERM", call: func() string {
			return rawCall(unix.SYS_IO_URING_ENTER, ^uintptr(0), 0, 0, 0, 0, 0)
		}},
		{name: "io_uring_register", want: "EPERM", call: func() string {
			return rawCall(unix.SYS_IO_URING_REGISTER, ^uintptr(0), 0, 0, 0)
		}},
		{name: "open_by_handle_at", want: "EPERM", call: func() string {
			return rawCall(unix.SYS_OPEN_BY_HANDLE_AT, ^uintptr(0), 0, 0)
		}},
		{name: "name_to_handle_at", want: "EPERM", call: func() string {
			_, _, err := unix.NameToHandleAt(unix.AT_FDCWD, noPath, 0)
			return errnoString(err)
		}},
		{name: "reboot", want: "EPERM", call: func() string {
			return rawCall(unix.SYS_REBOOT, 0, 0, 0, 0) // wrong magic: EINVAL for root
		}},
		{name: "swapon", want: "EPERM", call: func() string { return pathCall(unix.SYS_SWAPON, noPath) }},
		{name: "swapoff", want: "EPERM", call: func() string { return pathCall(unix.SYS_SWAPOFF, noPath) }},
		{name: "acct", want: "EPERM", call: func() string { return errnoString(unix.Acct(noPath)) }},
		{name: "quotactl", want: "EPERM", call: func() string {
			const qGetinfo = 0x800005 // Q_GETINFO of user quotas: reads only
			p := cstr(noPath)
			_, _, errno := unix.Syscall6(unix.SYS_QUOTACTL, qGetinfo<<8, uintptr(unsafe.Pointer(p)), 0, 0, 0, 0)
			return errnoString(errno)
		}},
		{name: "syslog", want: "EPERM", call: func() string {
			_, err := unix.Klogctl(syslogActionSizeBuffer, nil)
			return errnoString(err)
		}},
		// Personas: only the default one and the query pass.
		{name: "personality(PER_LINUX32)", want: "EPERM", call: func() string { return personality(perLinux32) }},
		{name: "personality(ADDR_NO_RANDOMIZE)", want: "EPERM", call: func() string { return personality(addrNoRandomize) }},
		// Raw frames and IPsec keys.
		{name: "socket(AF_PACKET)", want: "EPERM", call: func() string {
			return fdResult(unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0))
		}},
		{name: "socket(AF_KEY)", want: "EPERM", call: func() string {
			const pfKeyV2 = 2
			return fdResult(unix.Socket(unix.AF_KEY, unix.SOCK_RAW|unix.SOCK_CLOEXEC, pfKeyV2))
		}},

		// What must keep working.
		{name: "allowed: getpid", want: "ok", call: func() string {
			pid, _, errno := unix.RawSyscall(unix.SYS_GETPID, 0, 0, 0)
			if errno != 0 {
				return errnoString(errno)
			}
			if int(pid) != os.Getpid() {
				return fmt.Sprintf("pid %d", pid)
			}
			return "ok"
		}},
		{name: "allowed: syscall.ForkExec", want: "ok", call: forkExecProbe},
		{name: "allowed: forked command carries the filter", want: "mode 2", filterOnly: true, call: func() string {
			out, err := exec.Command("/bin/sh", "-c", "sed -n 's/^Seccomp:[[:space:]]*/mode /p' /proc/self/status").Output()
			if err != nil {
				return err.Error()
			}
			return strings.TrimSpace(string(out))
		}},
		{name: "allowed: os/exec", want: "ok", call: func() string {
			out, err := exec.Command("/bin/sh", "-c", "echo ok").Output()
			if err != nil {
				return err.Error()
			}
			return strings.TrimSpace(string(out))
		}},
		{name: "allowed: socketpair(AF_UNIX)", want: "ok", call: func() string {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err == nil {
				unix.Close(fds[0])
				unix.Close(fds[1])
			}
			return errnoString(err)
		}},
		// AF_UNIX is refused only below full (nounix): at full no host
		// socket is mounted in the new root, and seccomp cannot see the
		// path a connect or bind names, so it could not tell them apart.
		{name: "allowed: socket(AF_UNIX)", want: "ok", call: func() string {
			return fdResult(unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0))
		}},
		// IPv4 and IPv6 are refused only with the network off below full
		// (offline), where Landlock cuts TCP alone.
		{name: "allowed: socket(AF_INET)", want: "ok", call: func() string {
			return fdResult(unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0))
		}},
		{name: "allowed: socket(AF_INET, SOCK_DGRAM)", want: "ok", call: func() string {
			return fdResult(unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0))
		}},
		{name: "allowed: socket(AF_INET6, SOCK_DGRAM)", want: "ok", call: func() string {
			fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
			if errors.Is(err, unix.EAFNOSUPPORT) {
				return "ok" // no IPv6 in this kernel: nothing to refuse
			}
			return fdResult(fd, err)
		}},
		{name: "allowed: socket(AF_NETLINK)", want: "ok", call: func() string {
			return fdResult(unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE))
		}},
		{name: "allowed: net.Interfaces", want: "ok", call: func() string {
			_, err := net.Interfaces()
			return errnoString(err)
		}},
		{name: "allowed: personality query", want: "ok", call: func() string {
			return rawCall(unix.SYS_PERSONALITY, 0xffffffff)
		}},
		{name: "allowed: personality(PER_LINUX)", want: "ok", call: func() string {
			return rawCall(unix.SYS_PERSONALITY, perLinux)
		}},
		// Without a namespace flag clone reaches the kernel, which refuses
		// CLONE_THREAD without CLONE_SIGHAND before doing anything.
		{name: "allowed: clone without a namespace flag", want: "EINVAL", call: func() string {
			return rawCall(unix.SYS_CLONE, unix.CLONE_THREAD, 0, 0, 0, 0)
		}},
		{name: "allowed: a new thread and a GC", want: "ok", call: func() string {
			done := make(chan struct{})
			go func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				runtime.GC()
				close(done)
			}()
			<-done
			return "ok"
		}},
	}
	// clone with each namespace flag: CLONE_THREAD without CLONE_SIGHAND
	// makes the kernel refuse it (EINVAL) before it looks further, so the
	// control never forks.
	for _, f := range []struct {
		name string
		flag uintptr
	}{
		{"CLONE_NEWNS", unix.CLONE_NEWNS}, {"CLONE_NEWUSER", unix.CLONE_NEWUSER}, {"CLONE_NEWPID", unix.CLONE_NEWPID},
		{"CLONE_NEWNET", unix.CLONE_NEWNET}, {"CLONE_NEWIPC", unix.CLONE_NEWIPC}, {"CLONE_NEWUTS", unix.CLONE_NEWUTS},
		{"CLONE_NEWCGROUP", unix.CLONE_NEWCGROUP},
	} {
		probes = append(probes, seccompProbe{name: "clone(" + f.name + ")", want: "EPERM", call: func() string {
			return rawCall(unix.SYS_CLONE, f.flag|unix.CLONE_THREAD, 0, 0, 0, 0)
		}})
	}
	probes = append(probes, archProbes()...)
	for _, prog := range [][]string{
		{"bash", "-c", "set -e; x=$(echo ok); [ \"$x\" = ok ]; ( exit 0 ) & wait"},
		{"git", "-c", "init.defaultBranch=main", "init", "-q", "repo"},
		{"python3", "-c", "import socket, subprocess, threading; socket.socketpair(); subprocess.run(['true'], check=True)"},
		{"node", "-e", "require('fs').readFileSync('/proc/self/status'); require('child_process').execFileSync('true')"},
		{"go", "version"},
	} {
		probes = append(probes, seccompProbe{name: "allowed: program " + prog[0], want: "ok", filterOnly: true, call: func() string {
			return programProbe(prog)
		}})
	}
	return probes
}

// forkExecProbe starts sh with syscall.ForkExec, as the helper starts the
// command, and reads what it prints.
func forkExecProbe() string {
	r, w, err := os.Pipe()
	if err != nil {
		return err.Error()
	}
	defer r.Close()
	pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", "echo ok"}, &syscall.ProcAttr{
		Files: []uintptr{0, w.Fd(), 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	w.Close()
	if err != nil {
		return errnoString(err)
	}
	out, _ := io.ReadAll(r)
	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil {
		return errnoString(err)
	}
	if !ws.Exited() || ws.ExitStatus() != 0 || string(out) != "ok\n" {
		return fmt.Sprintf("%q, status %v", out, ws)
	}
	return "ok"
}

// programProbe runs an ordinary program in a directory of its own;
// "missing" if it is not installed.
func programProbe(argv []string) string {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return "missing"
	}
	dir, err := os.MkdirTemp("", "agent-lsp-seccomp-prog-")
	if err != nil {
		return err.Error()
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(path, argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%v: %s", err, out)
	}
	return "ok"
}

// personality sets persona p and puts the old one back where that worked.
func personality(p uintptr) string {
	old, _, errno := unix.RawSyscall(unix.SYS_PERSONALITY, p, 0, 0)
	if errno == 0 {
		unix.RawSyscall(unix.SYS_PERSONALITY, old, 0, 0)
	}
	return errnoString(errno)
}

func rawCall(nr uintptr, args ...uintptr) string {
	var a [6]uintptr
	copy(a[:], args)
	_, _, errno := unix.RawSyscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
	return errnoString(errno)
}

func pathCall(nr uintptr, path string) string {
	p := cstr(path)
	_, _, errno := unix.Syscall(nr, uintptr(unsafe.Pointer(p)), 0, 0)
	return errnoString(errno)
}

func cstr(s string) *byte {
	p, err := unix.BytePtrFromString(s)
	if err != nil {
		panic(err)
	}
	return p
}

func fdResult(fd int, err error) string {
	if err == nil {
		unix.Close(fd)
	}
	return errnoString(err)
}

// errnoString is "ok" for no error, an errno's name (EPERM) for an errno.
func errnoString(err error) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &errno):
		if errno == 0 {
			return "ok"
		}
		if name := unix.ErrnoName(errno); name != "" {
			return name
		}
	}
	return err.Error()
}
