package projectfile

import (
	"errors"
	"testing"
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
