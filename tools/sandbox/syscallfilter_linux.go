//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter is the second layer under the namespaces and Landlock,
// as in Codex's and Anthropic's sandboxes: what a command should never need
// and what has been the way out of containers fails with EPERM. It is a
// denylist returning an error, never a kill: the helper's own Go runtime
// goes on running on the thread that installs it, and then forks the command.

// deniedCalls are refused outright, each with why.
var deniedCalls = append([]struct {
	nr  uintptr
	why string
}{
	{unix.SYS_KEYCTL, "the session keyring"}, {unix.SYS_ADD_KEY, "the session keyring"}, {unix.SYS_REQUEST_KEY, "the session keyring"},
	{unix.SYS_PTRACE, "other processes' memory"}, {unix.SYS_PROCESS_VM_READV, "other processes' memory"}, {unix.SYS_PROCESS_VM_WRITEV, "other processes' memory"},
	{unix.SYS_MOUNT, "the mount table"}, {unix.SYS_UMOUNT2, "the mount table"}, {unix.SYS_PIVOT_ROOT, "the mount table"}, {unix.SYS_CHROOT, "the mount table"},
	{unix.SYS_MOVE_MOUNT, "the mount table"}, {unix.SYS_OPEN_TREE, "the mount table"}, {unix.SYS_FSOPEN, "the mount table"},
	{unix.SYS_FSMOUNT, "the mount table"}, {unix.SYS_FSCONFIG, "the mount table"}, {unix.SYS_FSPICK, "the mount table"}, {unix.SYS_MOUNT_SETATTR, "the mount table"},
	{unix.SYS_UNSHARE, "new namespaces"}, {unix.SYS_SETNS, "other namespaces"},
	{unix.SYS_INIT_MODULE, "kernel modules"}, {unix.SYS_FINIT_MODULE, "kernel modules"}, {unix.SYS_DELETE_MODULE, "kernel modules"},
	{unix.SYS_KEXEC_LOAD, "a new kernel"}, {unix.SYS_KEXEC_FILE_LOAD, "a new kernel"}, {unix.SYS_REBOOT, "the machine"},
	{unix.SYS_BPF, "kernel programs"}, {unix.SYS_PERF_EVENT_OPEN, "kernel tracing"}, {unix.SYS_USERFAULTFD, "kernel race exploits"},
	{unix.SYS_IO_URING_SETUP, "io_uring (its operations bypass seccomp)"}, {unix.SYS_IO_URING_ENTER, "io_uring"}, {unix.SYS_IO_URING_REGISTER, "io_uring"},
	{unix.SYS_OPEN_BY_HANDLE_AT, "files by handle, past the mount namespace"}, {unix.SYS_NAME_TO_HANDLE_AT, "file handles"},
	{unix.SYS_SWAPON, "swap"}, {unix.SYS_SWAPOFF, "swap"}, {unix.SYS_ACCT, "process accounting"}, {unix.SYS_QUOTACTL, "quotas"},
	{unix.SYS_SYSLOG, "the kernel log"}, {unix.SYS_LOOKUP_DCOOKIE, "kernel profiling"},
}, archDenied...)

// deniedIoctls are ioctl requests refused whatever the descriptor: typing
// into a terminal's input queue (TIOCSTI, the bubblewrap CVE-2017-5226
// pattern) and the Linux console's (TIOCLINUX). The helper also starts the
// command in a session of its own, without a controlling terminal.
var deniedIoctls = []uint32{unix.TIOCSTI, unix.TIOCLINUX}

// haveSeccomp: this architecture has the filter.
const haveSeccomp = true

// namespaceFlags are clone's flags that make a namespace (CLONE_NEWTIME
// shares its bit with clone's exit signal and only means a namespace to
// unshare and clone3, both refused).
const namespaceFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// seccomp_data's fields, as BPF reads them (little-endian: an argument's
// low 32 bits come first).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
)

const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retEPERM  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
)

// program assembles the filter. Jumps are to labels, resolved at the end.
func (o Filter) program() ([]unix.SockFilter, error) {
	var a bpfAsm
	a.load(offArch)
	a.jumpIf(unix.BPF_JEQ, auditArch, "", "eperm") // another ABI (i386, arm32, x32 below) gets nothing
	a.load(offNr)
	if x32Bit != 0 {
		a.jumpIf(unix.BPF_JGE, x32Bit, "eperm", "")
	}
	for _, d := range deniedCalls {
		a.jumpIf(unix.BPF_JEQ, uint32(d.nr), "eperm", "")
	}
	a.jumpIf(unix.BPF_JEQ, unix.SYS_CLONE3, "enosys", "") // its flags are in memory BPF can't read; libc falls back to clone
	a.jumpIf(unix.BPF_JEQ, unix.SYS_CLONE, "clone", "")
	a.jumpIf(unix.BPF_JEQ, unix.SYS_SOCKET, "socket", "")
	a.jumpIf(unix.BPF_JEQ, unix.SYS_PERSONALITY, "personality", "")
	a.jumpIf(unix.BPF_JEQ, unix.SYS_IOCTL, "ioctl", "")
	a.ret(retAllow)

	a.label("ioctl")
	a.load(offArg0 + 8) // the request, arg1's low 32 bits
	for _, req := range deniedIoctls {
		a.jumpIf(unix.BPF_JEQ, req, "eperm", "")
	}
	a.ret(retAllow)

	a.label("clone")
	a.load(offArg0)
	a.jumpIf(unix.BPF_JSET, namespaceFlags, "eperm", "")
	a.ret(retAllow)

	a.label("socket")
	a.load(offArg0)
	a.jumpIf(unix.BPF_JEQ, unix.AF_PACKET, "eperm", "") // raw frames
	a.jumpIf(unix.BPF_JEQ, unix.AF_KEY, "eperm", "")    // IPsec keys
	if o.NoUnixSockets {
		a.jumpIf(unix.BPF_JEQ, unix.AF_UNIX, "eperm", "")
	}
	if o.NoInetSockets {
		a.jumpIf(unix.BPF_JEQ, unix.AF_INET, "eperm", "")
		a.jumpIf(unix.BPF_JEQ, unix.AF_INET6, "eperm", "")
	}
	a.ret(retAllow)

	a.label("personality")
	a.load(offArg0)
	a.jumpIf(unix.BPF_JEQ, 0, "allow", "")          // PER_LINUX
	a.jumpIf(unix.BPF_JEQ, 0xffffffff, "allow", "") // a query
	a.ret(retEPERM)                                 // ADDR_NO_RANDOMIZE and friends

	a.label("allow")
	a.ret(retAllow)
	a.label("eperm")
	a.ret(retEPERM)
	a.label("enosys")
	a.ret(retENOSYS)
	return a.assemble()
}

// installSeccomp loads the filter on the calling thread, which must be
// locked to its goroutine and have no_new_privs set; the command forked
// from this thread inherits it (no TSYNC: the helper's other threads keep
// running as they are).
func installSeccomp(o Filter) error {
	prog, err := o.program()
	if err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	// The pointers are passed as integers: keep what they point at alive
	// (and in place) until the call is done.
	_, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(&fprog)
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}

// bpfAsm is a classic BPF program under construction.
type bpfAsm struct {
	code   []unix.SockFilter
	jumps  map[int][2]string // instruction → its true and false labels
	labels map[string]int
}

func (a *bpfAsm) load(off uint32) {
	a.code = append(a.code, unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off})
}

func (a *bpfAsm) ret(v uint32) {
	a.code = append(a.code, unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: v})
}

// jumpIf compares the accumulator with k; "" goes on to the next instruction.
func (a *bpfAsm) jumpIf(op uint16, k uint32, yes, no string) {
	if a.jumps == nil {
		a.jumps = map[int][2]string{}
	}
	a.jumps[len(a.code)] = [2]string{yes, no}
	a.code = append(a.code, unix.SockFilter{Code: unix.BPF_JMP | op | unix.BPF_K, K: k})
}

func (a *bpfAsm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.code)
}

func (a *bpfAsm) assemble() ([]unix.SockFilter, error) {
	for i, to := range a.jumps {
		for j, name := range to {
			if name == "" {
				continue
			}
			target, ok := a.labels[name]
			off := target - i - 1
			if !ok || off < 0 || off > 255 {
				return nil, fmt.Errorf("seccomp: jump from %d to %q out of range", i, name)
			}
			if j == 0 {
				a.code[i].Jt = uint8(off)
			} else {
				a.code[i].Jf = uint8(off)
			}
		}
	}
	return a.code, nil
}
