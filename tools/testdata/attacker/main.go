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
	case "read":
		data, err := os.ReadFile(os.Args[2])
		fmt.Printf("read: %q %v\n", data, err)
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
