//go:build unix

package projectfile

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// promptly fails the test if f has not returned within a minute: a read
// that waits on a FIFO or a terminal would hang the test binary otherwise.
// This is a watchdog for a hang, not a measure of speed.
func promptly(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s hung", what)
	}
}

func TestAFIFOOrSocketIsRefusedWithoutWaiting(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		tr := newTree(t)
		if err := syscall.Mkfifo(filepath.Join(tr.root, "AGENTS.md"), 0o644); err != nil {
			t.Fatal(err)
		}
		tr.link(t, "AGENTS.md", "linked.md") // a link beneath the root to the FIFO
		for _, rel := range []string{"AGENTS.md", "linked.md"} {
			var err error
			promptly(t, "reading a FIFO", func() { _, _, err = Read(tr.root, rel, 1<<10) })
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
				t.Errorf("%s: %v, want ErrNotRegular", rel, err)
			}
		}
		l, err := net.Listen("unix", filepath.Join(tr.root, "sock"))
		if err != nil {
			t.Skip("no unix socket here:", err)
		}
		defer l.Close()
		if _, _, err := Read(tr.root, "sock", 1<<10); !errors.Is(err, ErrNotRegular) {
			t.Errorf("a socket: %v, want ErrNotRegular", err)
		}
	})
}

func TestALinkToADeviceOrStdinIsRefused(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		tr := newTree(t)
		for _, dev := range []string{"/dev/zero", "/dev/stdin", "/dev/tty", "/dev/fd/0"} {
			name := filepath.Base(dev) + ".md"
			tr.link(t, dev, name)
			var err error
			var data []byte
			promptly(t, "reading "+dev, func() { data, _, err = Read(tr.root, name, 1<<10) })
			if !errors.Is(err, ErrOutside) || data != nil {
				t.Errorf("%s: %d bytes, %v, want ErrOutside", dev, len(data), err)
			}
		}
		if _, err := os.Stat(filepath.Join(tr.root, "zero.md")); err != nil {
			t.Errorf("control: the link to /dev/zero does not resolve: %v", err)
		}
	})
}
