//go:build unix

package sandbox

import (
	"errors"
	"os/exec"
	"testing"
)

// TestExitStatusIsTheShells: every back-end reads an exit the same way —
// the code, 128+N for a process signal N killed, and an error only where
// the process did not run to an exit.
func TestExitStatusIsTheShells(t *testing.T) {
	for _, c := range []struct {
		script string
		code   int
	}{{"exit 0", 0}, {"exit 3", 3}, {"kill -9 $$", 137}, {"kill -15 $$", 143}} {
		code, err := exitStatus(exec.Command("/bin/sh", "-c", c.script).Run())
		if err != nil || code != c.code {
			t.Errorf("%s: %d %v, want %d", c.script, code, err, c.code)
		}
	}
	if _, err := exitStatus(exec.Command("/nonexistent/command").Run()); err == nil {
		t.Error("a command that never started has an exit status")
	}
	if code, err := exitStatus(exec.ErrWaitDelay); err != nil || code != 0 {
		t.Errorf("output held past WaitDelay: %d %v", code, err)
	}
	if _, err := exitStatus(errors.New("broken pipe")); err == nil {
		t.Error("a failure is not an exit")
	}
}
