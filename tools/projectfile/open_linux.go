package projectfile

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2 was found missing: kernels before 5.6, or a
// seccomp filter (older container runtimes) that answers ENOSYS or EPERM.
// From then on every open walks by components.
var noOpenat2 atomic.Bool

// openat2 is unix.Openat2; a test makes it answer as a filtered one does.
var openat2 = unix.Openat2

// open opens rel (native, local and clean) beneath root with openat2, or by
// components where openat2 is missing.
func open(root, rel string, noFollow bool) (*os.File, error) {
	if noOpenat2.Load() {
		return openWalk(root, rel, noFollow)
	}
	flags := openFlags | unix.O_CLOEXEC
	if noFollow {
		flags |= unix.O_NOFOLLOW
	}
	f, err := openBeneath(root, rel, flags)
	switch {
	case errors.Is(err, errNoOpenat2):
		noOpenat2.Store(true)
		return openWalk(root, rel, noFollow)
	case noFollow && errors.Is(err, unix.ELOOP) && isLink(root, rel):
		return nil, aLink
	}
	return f, err
}

// errNoOpenat2 is openat2's ENOSYS or EPERM: the call is missing or
// filtered, not refused for this file.
var errNoOpenat2 = errors.New("openat2 is not available")

// openBeneath is openat2(root, rel) with flags, resolved beneath root and
// through no /proc magic link. EXDEV, the kernel's answer to a path or
// link that leads out, is errOutside.
func openBeneath(root, rel string, flags int) (*os.File, error) {
	dir, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(dir)
	how := &unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS}
	for tries := 0; ; tries++ {
		fd, err := openat2(dir, rel, how)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), filepath.Join(root, rel)), nil
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN && tries < 16:
			// A rename or mount raced the lookup: the kernel asks to retry.
			continue
		case err == unix.EXDEV:
			return nil, errOutside
		case err == unix.ENOSYS || err == unix.EPERM:
			return nil, errNoOpenat2
		}
		return nil, &os.PathError{Op: "openat2", Path: rel, Err: err}
	}
}

// isLink tells an O_NOFOLLOW refusal (ELOOP) of a last component that is a
// link from a loop or a magic link on the way: it opens the last component
// itself (O_PATH) and looks.
func isLink(root, rel string) bool {
	f, err := openBeneath(root, rel, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// specialFS names the pseudo file system f is on if it is /proc or /sys,
// whose files fstat calls regular.
func specialFS(f *os.File) string {
	var st unix.Statfs_t
	conn, err := f.SyscallConn() // not f.Fd(), which would make f blocking
	if err == nil {
		cerr := conn.Control(func(fd uintptr) { err = unix.Fstatfs(int(fd), &st) })
		err = errors.Join(err, cerr)
	}
	if err != nil {
		return ""
	}
	switch st.Type {
	case unix.PROC_SUPER_MAGIC:
		return "a file of /proc"
	case unix.SYSFS_MAGIC:
		return "a file of /sys"
	}
	return ""
}
