//go:build linux

package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
	"golang.org/x/sys/unix"
)

// The third round: what a command learns of the machine through /proc and
// /sys, and how much it can take of the disk. Judged by effect, each with an
// unsandboxed control.

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

// needBounded skips where the view's writes are measured while the
// command runs rather than bounded by a file system.
func needBounded(t *testing.T) {
	t.Helper()
	if c := sandbox.Probe(); c.Level != sandbox.Full || !c.Bounded {
		t.Skipf("sandbox %s: the view's writes are measured while a command runs, not bounded by a tmpfs (README)", c)
	}
}

// freeBytes is what the file system holding dir has free.
func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * st.Bsize
}

func TestHostileDiskBoundIsTheFileSystems(t *testing.T) {
	needSandbox(t)
	needBounded(t)
	const limit = 64 << 20
	h := newHostile(t, map[string]string{"a.txt": "mine\n"}, sandbox.Limits{Disk: limit})
	h.ws.SetSandbox(SandboxOptions{Limits: sandbox.Limits{Disk: limit}}) // the run's own cache: in the bound too

	// fallocate asks for 1 GiB at once: refused, and nothing of it reaches
	// the host's disk, where the view's dirs used to be.
	before := freeBytes(t, os.TempDir())
	out := h.run(t, "fallocate -l 1G big; echo fallocate:$?; ls -s big", 0)
	lost := before - freeBytes(t, os.TempDir())
	if !strings.Contains(out, "No space left on device") || !strings.Contains(out, "fallocate:1") || strings.Contains(out, "[killed") {
		t.Errorf("fallocate of 1 GiB past a 64 MiB bound was not refused by the file system:\n%s", out)
	}
	if lost > 512<<20 {
		t.Errorf("the host's disk lost %d MiB to a refused fallocate", lost>>20)
	}
	// A fast writer stops at the bound, and the file holds no more.
	out = h.run(t, "dd if=/dev/zero of=fill bs=1M count=200 2>&1; echo dd:$?", 0)
	if !strings.Contains(out, "No space left on device") || strings.Contains(out, "dd:0") {
		t.Errorf("dd wrote 200 MiB past a 64 MiB bound:\n%s", out)
	}
	inViewDir(t, h.ws, func(dir string) {
		var st unix.Statfs_t
		if err := unix.Statfs(dir, &st); err != nil || st.Type != unix.TMPFS_MAGIC {
			t.Errorf("the view's upper dir is not on a tmpfs (type %#x, %v)", st.Type, err)
		}
		if fi, err := os.Stat(filepath.Join(dir, "fill")); err != nil || fi.Size() > limit {
			t.Errorf("dd's file in the view: %v %v, the bound is %d MiB", fi.Size(), err, limit>>20)
		}
	})
	// Files: the bound counts them too (one per 8 KiB of Disk: 8192).
	out = h.run(t, "rm -f fill big; mkdir many && cd many && seq 20000 | xargs touch 2>&1 | tail -1; echo made:$(ls | wc -l)", 0)
	made := -1
	if _, after, ok := strings.Cut(out, "made:"); ok {
		line, _, _ := strings.Cut(after, "\n")
		made, _ = strconv.Atoi(strings.TrimSpace(line))
	}
	if !strings.Contains(out, "No space left on device") || made <= 0 || made >= 20000 {
		t.Errorf("20,000 files were not refused past the bound (made %d):\n%s", made, out)
	}
	// What is left is the run's: the next command sees it and can free it.
	out = h.run(t, "ls many | wc -l; rm -rf many; echo kept > kept.txt; df -i . | tail -1", 0)
	if !strings.Contains(out, strconv.Itoa(made)) {
		t.Errorf("the next command does not see what the last one made (%d files):\n%s", made, out)
	}
	if out := h.run(t, "cat kept.txt", 0); !strings.Contains(out, "kept") {
		t.Errorf("a write is not there for the next command:\n%s", out)
	}

	// The control: outside, the same fallocate takes the disk, and the
	// same files are all made.
	scratch := t.TempDir()
	before = freeBytes(t, scratch)
	if b, err := exec.Command("fallocate", "-l", "1G", filepath.Join(scratch, "big")).CombinedOutput(); err != nil {
		t.Fatalf("control: %v %s", err, b)
	}
	if lost := before - freeBytes(t, scratch); lost < 512<<20 {
		t.Errorf("control: a 1 GiB fallocate took %d MiB of the disk: statfs does not see it", lost>>20)
	}
	os.Remove(filepath.Join(scratch, "big"))
	cmd := exec.Command("bash", "-c", "mkdir many && cd many && seq 20000 | xargs touch && ls | wc -l")
	cmd.Dir = scratch
	if b, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(b)) != "20000" {
		t.Errorf("control: %v %s", err, b)
	}
}

// Ordinary work in a bounded view: go test with the run's own
// build cache (in the layer), git on the workspace's repository, writes
// that later commands read back, staged changes over what commands wrote.
func TestOrdinaryWorkInTheBoundedView(t *testing.T) {
	needSandbox(t)
	needBounded(t)
	const limit = 256 << 20
	h := newHostile(t, map[string]string{"go.mod": "module small\n\ngo 1.22\n", "add.go": addGood, "add_test.go": addTest}, sandbox.Limits{Disk: limit})
	git(t, h.root, "add", ".")
	h.ws.SetSandbox(SandboxOptions{Limits: sandbox.Limits{Disk: limit}}) // the run's own cache
	for _, c := range []struct{ command, want string }{
		{"go test -count=1 ./... && echo tested", "tested"},
		{"df -h ~/.cache . | tail -2; go env GOCACHE", "256M"},
		{"git status --short; echo made > made.txt && mkdir -p d && echo deep > d/f", "A  add.go"},
		{"cat made.txt d/f", "made\ndeep\n"},
	} {
		if out := h.run(t, c.command, 0); !strings.Contains(out, c.want) {
			t.Errorf("%s: want %q in:\n%s", c.command, c.want, out)
		}
	}
	// A staged change wins over what a command wrote at the same path.
	h.run(t, "echo scribble > add.go", 0)
	call(t, h.reg, "write_file", map[string]any{"path": "add.go", "content": addBad})
	if out := h.run(t, "go test -count=1 ./... || echo failed-as-staged", 0); !strings.Contains(out, "failed-as-staged") {
		t.Errorf("the staged add.go is not what go test ran:\n%s", out)
	}
	call(t, h.reg, "write_file", map[string]any{"path": "add.go", "content": addGood})
	if out := h.run(t, "go test -count=1 ./... && cat made.txt", 0); !strings.Contains(out, "ok") || !strings.Contains(out, "made") {
		t.Errorf("after restaging:\n%s", out)
	}
}
