//go:build linux && amd64

package sandbox

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_X86_64

// x32Bit marks the x32 ABI's syscall numbers, which would otherwise reach
// the same kernel entry points under numbers the filter does not list.
const x32Bit = 0x40000000

var archDenied = []struct {
	nr  uintptr
	why string
}{{unix.SYS_IOPL, "I/O ports"}, {unix.SYS_IOPERM, "I/O ports"}}
