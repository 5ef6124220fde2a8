//go:build linux

package tools

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
	"golang.org/x/sys/unix"
)

// The third round: what a command learns of the machine through /proc and
// /sys. Judged by effect, each with an unsandboxed control.

// keyDescriptionCanary adds a key whose description is a canary to a new session
// keyring of a thread of its own, and removes it when the test ends.
// /proc/keys lists it to every process of this user: the description, not
// the payload, is what leaks there.
func keyDescriptionCanary(t *testing.T) string {
	t.Helper()
	desc := "agent-lsp-canary-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	added, done, gone := make(chan error, 1), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(gone)
		runtime.LockOSThread() // never unlocked: the thread and its keyring end with the goroutine
		if _, _, errno := unix.RawSyscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0); errno != 0 {
			added <- errno
			return
		}
		id, err := unix.AddKey("user", desc, []byte("payload"), unix.KEY_SPEC_SESSION_KEYRING)
		added <- err
		if err == nil {
			<-done
			unix.KeyctlInt(unix.KEYCTL_INVALIDATE, id, 0, 0, 0)
		}
	}()
	if err := <-added; err != nil {
		t.Skipf("no keyring to put a canary in here: %v", err)
	}
	t.Cleanup(func() { close(done); <-gone })
	return desc
}

// between is what out holds between the lines start and end.
func between(out, start, end string) string {
	_, rest, _ := strings.Cut(out, start+"\n")
	in, _, _ := strings.Cut(rest, end)
	return in
}

func TestHostileProcAndSysShowOnlyTheCommandsWorld(t *testing.T) {
	if level := needSandbox(t); level != sandbox.Full {
		t.Skipf("at level %s the command sees the host's /proc: without a mount namespace nothing can be masked (README)", level)
	}
	desc := keyDescriptionCanary(t)
	h := newHostile(t, map[string]string{"a.txt": "mine\n"}, sandbox.Limits{})
	probe := `echo keys:; cat /proc/keys; echo :keys
echo timers:; head -c 2000 /proc/timer_list; echo :timers
echo users:; cat /proc/key-users; echo :users
ls /sys/firmware 2>&1 || true
v=$(cat /proc/sys/vm/swappiness) && echo $v > /proc/sys/vm/swappiness && echo wrote-sysctl
echo done`
	out := h.run(t, probe, 0)
	if !strings.Contains(out, "done") {
		t.Fatalf("the probe did not run:\n%s", out)
	}
	for _, section := range []string{"keys", "timers", "users"} {
		if got := between(out, section+":", ":"+section); strings.TrimSpace(got) != "" {
			t.Errorf("/proc shows the command the host's %s:\n%s", section, got)
		}
	}
	if strings.Contains(out, desc) {
		t.Errorf("the command read the user's key description %s:\n%s", desc, out)
	}
	if !strings.Contains(out, "/sys/firmware") || strings.Contains(out, "memmap") {
		t.Errorf("the command sees the host's /sys:\n%s", out)
	}
	if strings.Contains(out, "wrote-sysctl") || !strings.Contains(out, "Read-only file system") {
		t.Errorf("a sysctl write was not refused by a read-only /proc/sys:\n%s", out)
	}
	// The control: the same probe outside shows the key, the timers and
	// /sys, and (as root) writes the sysctl (its own value, changing nothing).
	ctl, _ := exec.Command("bash", "-c", probe).CombinedOutput()
	if !strings.Contains(between(string(ctl), "keys:", ":keys"), desc) {
		t.Errorf("control: /proc/keys outside does not list the canary, the detector is blind:\n%s", ctl)
	}
	if strings.TrimSpace(between(string(ctl), "timers:", ":timers")) == "" {
		t.Errorf("control: /proc/timer_list is empty outside too:\n%s", ctl)
	}
	if _, err := os.Stat("/sys/firmware"); err == nil && strings.Contains(string(ctl), "No such file") {
		t.Errorf("control: /sys/firmware not listed outside:\n%s", ctl)
	}
	if os.Geteuid() == 0 && !strings.Contains(string(ctl), "wrote-sysctl") {
		t.Errorf("control: root could not write the sysctl outside either, the check proves nothing:\n%s", ctl)
	}
}
