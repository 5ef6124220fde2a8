// Command attacker is what a hostile command would run inside the sandbox:
// the hostile tests run it inside, and outside as the control that proves
// each detector fires. Every subcommand prints what it got, or the error.
package main

import (
	"fmt"
	"net"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Println("usage: attacker connect PATH | key DESCRIPTION | read PATH")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "connect": // a host daemon's pathname unix socket
		c, err := net.Dial("unix", os.Args[2])
		if err != nil {
			fmt.Println("connect:", err)
			return
		}
		c.Write([]byte("leak"))
		c.Close()
		fmt.Println("connected")
	case "key": // a key in the session keyring
		fmt.Println("key:", readKey(os.Args[2]))
	case "syscalls": // what the seccomp filter refuses, each with its errno
		for _, c := range probes() {
			fmt.Printf("%s: %v\n", c.name, c.call())
		}
	case "read":
		data, err := os.ReadFile(os.Args[2])
		fmt.Printf("read: %q %v\n", data, err)
	}
}

type probe struct {
	name string
	call func() error
}

// probes make each call so that it fails harmlessly where the kernel gets
// it (a bad argument, a missing path): EPERM means the filter refused it.
func probes() []probe {
	raw := func(nr uintptr, a ...uintptr) error {
		a = append(a, 0, 0, 0, 0, 0, 0)
		_, _, errno := unix.Syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
		if errno == 0 {
			return nil
		}
		return errno
	}
	return []probe{
		{"keyctl", func() error { return raw(unix.SYS_KEYCTL, unix.KEYCTL_GET_KEYRING_ID, uintptr(0xfffffffd), 0) }},
		{"unshare", func() error { return raw(unix.SYS_UNSHARE, unix.CLONE_NEWUSER) }},
		{"mount", func() error { return unix.Mount("none", "/nonexistent-agent-lsp", "tmpfs", 0, "") }},
		{"ptrace", func() error { return raw(unix.SYS_PTRACE, unix.PTRACE_PEEKDATA, 999999, 0) }},
		{"bpf", func() error { return raw(unix.SYS_BPF, 999, 0, 0) }},
		{"io_uring_setup", func() error { return raw(unix.SYS_IO_URING_SETUP, 0, 0) }},
		{"open_by_handle_at", func() error { return raw(unix.SYS_OPEN_BY_HANDLE_AT, ^uintptr(99), 0, 0) }},
		{"init_module", func() error { return raw(unix.SYS_INIT_MODULE, 0, 0, 0) }},
		{"ioctl TIOCSTI", func() error { c := byte('x'); return raw(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&c))) }},
	}
}

func readKey(desc string) string {
	typ, _ := unix.BytePtrFromString("user")
	d, _ := unix.BytePtrFromString(desc)
	id, _, errno := unix.Syscall6(unix.SYS_KEYCTL, unix.KEYCTL_SEARCH, uintptr(0xfffffffd) /* KEY_SPEC_SESSION_KEYRING */, uintptr(unsafe.Pointer(typ)), uintptr(unsafe.Pointer(d)), 0, 0)
	if errno != 0 {
		keys, _ := os.ReadFile("/proc/keys")
		if strings.Contains(string(keys), desc) {
			return "search: " + errno.Error() + "; but /proc/keys lists it"
		}
		return "search: " + errno.Error()
	}
	buf := make([]byte, 256)
	n, _, errno := unix.Syscall6(unix.SYS_KEYCTL, unix.KEYCTL_READ, id, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
	if errno != 0 {
		return "read: " + errno.Error()
	}
	return "payload " + string(buf[:min(int(n), len(buf))])
}
