package sandbox

import (
	"os"
	"strconv"
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

// foreignArchProbes: getpid by the i386 ABI (int 0x80), which the kernel
// runs for a 64-bit process too when it has 32-bit emulation; the filter
// sees AUDIT_ARCH_I386 and refuses everything.
func foreignArchProbes() []seccompProbe {
	return []seccompProbe{{name: "i386 getpid (int 0x80)", want: "EPERM", call: i386Getpid}}
}

// i386Getpid runs `mov eax, 20 (i386 getpid); int 0x80; ret` from an
// executable page, called as a Go func() uintptr: the result is in RAX
// (Go's register ABI), and the code touches no register Go keeps (only
// RAX, and R8-R11, which the kernel may clear, are scratch).
func i386Getpid() string {
	code := []byte{0xb8, 0x14, 0, 0, 0, 0xcd, 0x80, 0xc3}
	mem, err := unix.Mmap(-1, 0, unix.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return errnoString(err)
	}
	copy(mem, code)
	if err := unix.Mprotect(mem, unix.PROT_READ|unix.PROT_EXEC); err != nil {
		return errnoString(err)
	}
	entry := uintptr(unsafe.Pointer(&mem[0]))
	closure := &entry // a func value points at its code's address
	call := *(*func() uintptr)(unsafe.Pointer(&closure))
	r := int32(uint32(call()))
	switch {
	case r < 0:
		return errnoString(unix.Errno(-r))
	case int(r) != os.Getpid():
		return "pid " + strconv.Itoa(int(r))
	}
	return "ok"
}
