package sandbox

import (
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// x32Bit marks an x32 ABI call (__X32_SYSCALL_BIT).
const x32SyscallBit = 0x40000000

// archProbes: the I/O-port calls (with arguments the kernel refuses first:
// EINVAL even for root) and getpid by the x32 ABI (ENOSYS outside where
// the kernel has no x32).
func archProbes() []seccompProbe {
	return []seccompProbe{
		{name: "iopl", want: "EPERM", call: func() string { return rawCall(unix.SYS_IOPL, 4) }},
		{name: "ioperm", want: "EPERM", call: func() string { return rawCall(unix.SYS_IOPERM, 0x10000, 1, 1) }},
		{name: "x32 getpid", want: "EPERM", call: func() string { return rawCall(x32SyscallBit | unix.SYS_GETPID) }},
	}
}

// foreignArchProbe is mkdir by the i386 ABI (int 0x80), which the kernel
// runs for a 64-bit process too when it has 32-bit emulation; the filter
// sees AUDIT_ARCH_I386 and refuses everything. mkdir leaves an effect the
// parent can look for: whether the call ran is judged by the directory,
// not only by what the instruction returned.
const foreignArchProbe = "i386 mkdir (int 0x80)"

func foreignArchProbes() []seccompProbe {
	return []seccompProbe{{name: foreignArchProbe, want: "EPERM", call: func() string {
		return i386Mkdir(filepath.Join(filepath.Dir(os.Getenv(seccompOutEnv)), foreignArchMade))
	}}}
}

// i386Mkdir makes path with the i386 ABI's mkdir (39) through int 0x80,
// from machine code on a page below 4 GiB (the i386 ABI passes 32-bit
// pointers), called as a Go func() uintptr: the result is in RAX (Go's
// register ABI). The code touches only registers Go's ABI lets a callee
// clobber (RAX, RBX, RCX, RDX, RSI, RDI, R10, R11; the kernel may clear
// R8-R11 on int 0x80).
//
// A kernel may refuse the instruction itself instead of returning an error
// (a #GP, delivered as SIGSEGV at the int 0x80). Go's runtime would turn
// that into "fatal error: fault", which looks like any crash of the test's
// own making; so the code sets SIGSEGV to its default action around the
// instruction and back (rt_sigaction(2) with the kernel's struct): a child
// killed by SIGSEGV was stopped there, and nowhere else.
func i386Mkdir(path string) string {
	if len(path) >= 256 {
		return "path too long for the probe's page: " + path
	}
	page := unix.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_32BIT)
	if err != nil {
		return errnoString(err)
	}
	// The data page: SIG_DFL's sigaction (zeros), room for the old one, the path.
	base := uint32(uintptr(unsafe.Pointer(&mem[0])))
	data := base + uint32(page)
	dfl, old, pathAt := data, data+64, data+128
	copy(mem[page+128:], path+"\x00")
	const sigaction, sigsegv, mkdir32 = 13, 11, 39
	var code []byte
	imm := func(op []byte, v uint32) {
		code = append(append(code, op...), byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	setSIGSEGV := func(act, oldact uint32) {
		imm([]byte{0xb8}, sigaction)    // mov eax, rt_sigaction
		imm([]byte{0xbf}, sigsegv)      // mov edi, SIGSEGV
		imm([]byte{0xbe}, act)          // mov esi, act
		imm([]byte{0xba}, oldact)       // mov edx, oldact (0: none)
		imm([]byte{0x41, 0xba}, 8)      // mov r10d, sizeof(sigset_t)
		code = append(code, 0x0f, 0x05) // syscall
	}
	setSIGSEGV(dfl, old)
	imm([]byte{0xb8}, mkdir32)            // mov eax, mkdir (i386)
	imm([]byte{0xbb}, pathAt)             // mov ebx, path
	imm([]byte{0xb9}, 0o700)              // mov ecx, mode
	code = append(code, 0xcd, 0x80, 0x50) // int 0x80; push rax
	setSIGSEGV(old, 0)
	code = append(code, 0x58, 0xc3) // pop rax; ret
	copy(mem, code)
	if err := unix.Mprotect(mem[:page], unix.PROT_READ|unix.PROT_EXEC); err != nil {
		return errnoString(err)
	}
	// No core file where the kernel stops the child.
	unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	entry := uintptr(unsafe.Pointer(&mem[0]))
	closure := &entry // a func value points at its code's address
	call := *(*func() uintptr)(unsafe.Pointer(&closure))
	if r := int32(uint32(call())); r < 0 {
		return errnoString(unix.Errno(-r))
	}
	return "ok"
}
