package projectfile

import (
	"errors"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestProcAndSysAreNeverRead: even a root inside /proc or /sys gives
// nothing: their files look regular to fstat, and their links are magic.
func TestProcAndSysAreNeverRead(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		for _, c := range []struct{ root, rel string }{
			{"/proc/self", "environ"}, {"/proc", "self/environ"}, {"/proc/self", "cwd/go.mod"}, {"/proc/self", "root/etc/hostname"},
			{"/sys/kernel", "uevent_seqnum"},
		} {
			data, _, err := Read(c.root, c.rel, 1<<10)
			if err == nil || data != nil {
				t.Errorf("%s/%s: read %q", c.root, c.rel, data)
				continue
			}
			if !errors.Is(err, ErrNotRegular) && !errors.Is(err, ErrOutside) {
				t.Logf("%s/%s: %v", c.root, c.rel, err)
			}
		}
	})
}

// TestWithoutOpenat2TheWalkTakesOver: where openat2 answers ENOSYS (an old
// kernel) or EPERM (an old container's seccomp filter), reads go on by
// components, under the same rule.
func TestWithoutOpenat2TheWalkTakesOver(t *testing.T) {
	for _, errno := range []unix.Errno{unix.ENOSYS, unix.EPERM} {
		t.Run(errno.Error(), func(t *testing.T) {
			calls := 0
			openat2 = func(int, string, *unix.OpenHow) (int, error) { calls++; return -1, errno }
			t.Cleanup(func() { openat2 = unix.Openat2; noOpenat2.Store(false) })
			tr := newTree(t)
			tr.write(t, tr.root, "AGENTS.md", "Use tabs.\n")
			tr.link(t, filepath.Join(tr.outside, "secret"), ".mcp.json")
			for range 2 {
				if data, _, err := Read(tr.root, "AGENTS.md", 1<<10); err != nil || string(data) != "Use tabs.\n" {
					t.Fatalf("%q %v", data, err)
				}
				if data, _, err := Read(tr.root, ".mcp.json", 1<<10); !errors.Is(err, ErrOutside) || data != nil {
					t.Fatalf("a link out: %q %v", data, err)
				}
			}
			if calls != 1 || !noOpenat2.Load() {
				t.Errorf("openat2 was tried %d times, want once", calls)
			}
		})
	}
}
