package sandbox

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock is called directly rather than through go-landlock: that library
// restricts every thread at once (AllThreadsSyscall, unavailable in a cgo
// build such as ours), while the helper needs only the thread that forks the
// command restricted.

const (
	llRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// llFileOnly are the rights a rule on a file (not a directory) may carry.
	llFileOnly = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
)

// landlockABI is the kernel's Landlock ABI version, 0 when it has none.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// llHandled is every file-system right the ABI knows: all of them are
// denied except where a rule grants them.
func llHandled(abi int) uint64 {
	h := uint64(0x1fff) // ABI 1: EXECUTE … MAKE_SYM
	if abi >= 2 {
		h |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		h |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		h |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return h
}

// restrictThread applies the rules to the calling thread, which must be
// locked to its goroutine and have no_new_privs set. Paths that cannot be
// opened are left out (a rule for one would abort the set-up).
func (r *LandlockRules) restrictThread() error {
	handled := llHandled(r.ABI)
	attr := unix.LandlockRulesetAttr{Access_fs: handled}
	if r.NoTCP && r.ABI >= 4 {
		attr.Access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	if r.Scoped && r.ABI >= 6 {
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("create ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	for _, p := range r.RO {
		if err := addPathRule(int(fd), p, llRead&handled); err != nil {
			return err
		}
	}
	for _, p := range r.RW {
		if err := addPathRule(int(fd), p, handled); err != nil {
			return err
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("restrict self: %w", errno)
	}
	return nil
}

func addPathRule(ruleset int, path string, access uint64) error {
	f, err := os.OpenFile(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		access &= llFileOnly
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(f.Fd())}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("rule for %s: %w", path, errno)
	}
	return nil
}
