//go:build linux && arm64

package sandbox

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_AARCH64

// x32Bit: arm64 has no x32-like ABI (32-bit arm is another audit arch).
const x32Bit = 0

var archDenied []struct {
	nr  uintptr
	why string
}
