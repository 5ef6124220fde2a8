//go:build linux

package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
	"golang.org/x/sys/unix"
)

// The second round of the hostile corpus: the sandbox as a boundary. Each
// attack is judged by its effect on the host, and each has an unsandboxed
// control in the same test that shows the detector would have seen it.

// withAttacker copies the attacker program (tools/testdata/attacker) into
// root, where the command can run it as ./.attacker; it returns its path.
func withAttacker(t *testing.T, root string) string {
	t.Helper()
	built := toolstest.Build(t, "./tools/testdata/attacker")
	data, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, ".attacker")
	if err := os.WriteFile(p, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// inViewDir runs fn with the directory of the run's view that commands
// write: the overlay's upper dir (on the host's disk or in the run's
// layer), or the copy.
func inViewDir(t *testing.T, w *Workspace, fn func(dir string)) {
	t.Helper()
	switch v := currentView(w).(type) {
	case *overlayView:
		ran := false
		v.withUpper(func(dir string) error { fn(dir); ran = true; return nil })
		if !ran {
			t.Fatal("no command has made the view's layer yet")
		}
		return
	case copyView:
		fn(v.Dir)
		return
	}
	t.Fatal("no view made yet")
}

// naiveStage writes data at dir/rel the way a host that trusts the view
// would: following whatever is there. The controls use it.
func naiveStage(dir, rel, data string) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(data), 0o644)
}

func TestHostileStagingNeverFollowsWhatACommandMade(t *testing.T) {
	needSandbox(t)
	for _, c := range []struct {
		name string
		// plant is what the command does (in the view) before the staging,
		// given the outside dir; planted is the same, done by the control in
		// a plain directory.
		plant  func(h *hostile) string
		stage  map[string]string
		victim string // the file outside that must not change (relative to outside)
	}{
		{"a symlinked directory", func(h *hostile) string { return "ln -s " + h.outside + " sub" },
			map[string]string{"sub/planted.txt": "pwned"}, "planted.txt"},
		{"a symlinked file", func(h *hostile) string { return "rm a.txt && ln -s " + filepath.Join(h.outside, "victim") + " a.txt" },
			map[string]string{"a.txt": "pwned"}, "victim"},
		{"a symlinked parent two levels up", func(h *hostile) string { return "mkdir -p x && ln -s " + h.outside + " x/y" },
			map[string]string{"x/y/z/planted.txt": "pwned"}, "z/planted.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHostile(t, map[string]string{"a.txt": "mine\n"}, sandbox.Limits{})
			writeTree(t, h.outside, map[string]string{"victim": "original\n"})
			out := h.run(t, c.plant(h), 0)
			for rel, content := range c.stage {
				call(t, h.reg, "write_file", map[string]any{"path": rel, "content": content})
			}
			out += h.run(t, "cat "+strings.Join(keys(c.stage), " "), 0)
			h.ws.Close()
			if data, err := os.ReadFile(filepath.Join(h.outside, filepath.FromSlash(c.victim))); err == nil && string(data) != "original\n" {
				t.Errorf("staging wrote outside the view (%s = %q):\n%s", c.victim, data, out)
			}
			// The control: a host that follows the planted link writes outside.
			scratch, elsewhere := t.TempDir(), t.TempDir()
			writeTree(t, elsewhere, map[string]string{"victim": "original\n"})
			plant := strings.ReplaceAll(c.plant(h), h.outside, elsewhere)
			writeTree(t, scratch, map[string]string{"a.txt": "mine\n"})
			if out, err := exec.Command("bash", "-c", "cd "+scratch+" && "+plant).CombinedOutput(); err != nil {
				t.Fatalf("control: %v %s", err, out)
			}
			for rel, content := range c.stage {
				naiveStage(scratch, rel, content)
			}
			if data, _ := os.ReadFile(filepath.Join(elsewhere, filepath.FromSlash(c.victim))); string(data) != "pwned" {
				t.Errorf("control: a naive host did not write through the link (%q): the detector is blind", data)
			}
		})
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestHostileGitReachedThroughALinkStaysUntouched(t *testing.T) {
	needSandbox(t)
	h := newHostile(t, map[string]string{"a.txt": "mine\n"}, sandbox.Limits{})
	out := h.run(t, "ln -s .git g && ln -s "+filepath.Join(h.root, ".git")+" g2", 0)
	for _, p := range []string{"g/hooks/pre-commit", "g2/hooks/pre-commit", "g/config"} {
		call(t, h.reg, "write_file", map[string]any{"path": p, "content": "#!/bin/sh\ntouch " + filepath.Join(h.outside, "canary") + "\n"})
	}
	out += h.run(t, "ls -la g g2 .git/hooks; cat g/hooks/pre-commit", 0)
	h.ws.Close()
	for _, p := range []string{"hooks/pre-commit", "config"} {
		data, _ := os.ReadFile(filepath.Join(h.root, ".git", p))
		if strings.Contains(string(data), "canary") {
			t.Errorf(".git/%s was written through a link the command made:\n%s", p, out)
		}
	}
	// The control: following the link from the host reaches .git.
	scratch := t.TempDir()
	os.MkdirAll(filepath.Join(scratch, ".git", "hooks"), 0o755)
	os.Symlink(".git", filepath.Join(scratch, "g"))
	naiveStage(scratch, "g/hooks/pre-commit", "canary")
	if _, err := os.Stat(filepath.Join(scratch, ".git", "hooks", "pre-commit")); err != nil {
		t.Error("control: a naive host did not reach .git through the link")
	}
}

func TestHostileRemovalNeverFollowsWhatACommandMade(t *testing.T) {
	needSandbox(t)
	h := newHostile(t, map[string]string{"a.txt": "mine\n"}, sandbox.Limits{})
	writeTree(t, h.outside, map[string]string{"x.txt": "keep\n", "deep/y.txt": "keep\n"})
	call(t, h.reg, "write_file", map[string]any{"path": "d/x.txt", "content": "staged"})
	// The command swaps the staged file's directory for a link outside, and
	// leaves links to outside around the view for the clean-up to meet.
	out := h.run(t, "rm -rf d && ln -s "+h.outside+" d && ln -s "+h.outside+" out && mkdir -p m && ln -s "+filepath.Join(h.outside, "deep")+" m/deep && chmod 000 m", 0)
	h.ws.Restore(nil) // the staged file is dropped: the view removes it
	out += h.run(t, "ls", 0)
	if err := h.ws.Close(); err != nil {
		t.Errorf("closing the view: %v", err)
	}
	for _, p := range []string{"x.txt", "deep/y.txt"} {
		if _, err := os.Stat(filepath.Join(h.outside, p)); err != nil {
			t.Errorf("%s outside the view was removed: %v\n%s", p, err, out)
		}
	}
	// The control: removing through the link from the host deletes outside.
	scratch, elsewhere := t.TempDir(), t.TempDir()
	writeTree(t, elsewhere, map[string]string{"x.txt": "keep\n"})
	os.Symlink(elsewhere, filepath.Join(scratch, "d"))
	os.Remove(filepath.Join(scratch, "d", "x.txt"))
	if _, err := os.Stat(filepath.Join(elsewhere, "x.txt")); err == nil {
		t.Error("control: a naive removal did not reach through the link")
	}
}

func TestHostileHardLinkAndFIFOInTheViewAreReplacedNotWritten(t *testing.T) {
	needSandbox(t)
	h := newHostile(t, map[string]string{"a.txt": "mine\n", "f.txt": "mine\n"}, sandbox.Limits{})
	writeTree(t, h.outside, map[string]string{"victim": "original\n"})
	h.run(t, "true", 0) // the view exists from here on
	// What a command at a level that let it link a host file would leave:
	// planted here directly, on the host. A hard link needs the same file
	// system: where the view's upper dir is on a tmpfs of its own, the
	// victim is a file beside it there (commands reach no host file to
	// link); else the test's temp dirs share the disk.
	victim := filepath.Join(h.outside, "victim")
	inViewDir(t, h.ws, func(dir string) {
		os.Remove(filepath.Join(dir, "a.txt"))
		err := os.Link(victim, filepath.Join(dir, "a.txt"))
		if errors.Is(err, unix.EXDEV) {
			victim = filepath.Join(filepath.Dir(dir), "victim")
			writeTree(t, filepath.Dir(dir), map[string]string{"victim": "original\n"})
			err = os.Link(victim, filepath.Join(dir, "a.txt"))
		}
		if err != nil {
			t.Fatalf("planting the hard link: %v", err)
		}
		os.Remove(filepath.Join(dir, "f.txt"))
		if err := unix.Mkfifo(filepath.Join(dir, "f.txt"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	call(t, h.reg, "write_file", map[string]any{"path": "a.txt", "content": "pwned"})
	call(t, h.reg, "write_file", map[string]any{"path": "f.txt", "content": "staged"})
	done := make(chan string, 1)
	go func() { done <- h.run(t, "cat a.txt f.txt", 0) }()
	select {
	case out := <-done:
		if !strings.Contains(out, "pwned") || !strings.Contains(out, "staged") {
			t.Errorf("the staged files are not what the command sees:\n%s", out)
		}
	case <-time.After(time.Minute):
		t.Fatal("staging blocked on the FIFO a command left")
	}
	var data []byte
	inViewDir(t, h.ws, func(string) { data, _ = os.ReadFile(victim) })
	if string(data) != "original\n" {
		t.Errorf("staging wrote through the hard link: victim = %q", data)
	}
	// The control: writing through the hard link changes the victim.
	scratch, elsewhere := t.TempDir(), t.TempDir()
	writeTree(t, elsewhere, map[string]string{"victim": "original\n"})
	os.Link(filepath.Join(elsewhere, "victim"), filepath.Join(scratch, "a.txt"))
	naiveStage(scratch, "a.txt", "pwned")
	if data, _ := os.ReadFile(filepath.Join(elsewhere, "victim")); string(data) != "pwned" {
		t.Error("control: writing through the hard link did not reach the victim")
	}
}

// unixListener listens on a pathname unix socket at p and counts the
// connections that reach it.
func unixListener(t *testing.T, p string) *atomic.Int64 {
	t.Helper()
	os.Remove(p)
	ln, err := net.Listen("unix", p)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", p, err)
	}
	t.Cleanup(func() { ln.Close(); os.Remove(p) })
	os.Chmod(p, 0o777)
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return &n
}

func TestHostileHostUnixSocketsAreOutOfReach(t *testing.T) {
	needSandbox(t) // full: no host path is mounted; landlock: the filter refuses unix sockets
	home, _ := os.UserHomeDir()
	h := newHostile(t, map[string]string{"a.txt": "mine\n"}, sandbox.Limits{})
	attacker := withAttacker(t, h.root)
	tag := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	for _, dir := range []string{"/run", os.TempDir(), home} {
		p := filepath.Join(dir, ".agent-lsp-test-"+tag+".sock")
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		accepted := unixListener(t, p)
		out := h.run(t, "./.attacker connect "+p, 0)
		if accepted.Load() != 0 || strings.Contains(out, "connected") {
			t.Errorf("a command reached the host's socket %s:\n%s", p, out)
		}
		// The control: the same program outside reaches it.
		ctl, _ := exec.Command(attacker, "connect", p).CombinedOutput()
		toolstest.Poll(t, "the control's connection", func() bool { return accepted.Load() == 1 })
		if !strings.Contains(string(ctl), "connected") {
			t.Errorf("control: %s", ctl)
		}
	}
}

func TestHostileShadowAndHostKeysAreNotThere(t *testing.T) {
	level := needSandbox(t)
	h := newHostile(t, map[string]string{"a.txt": "mine\n"}, sandbox.Limits{})
	attacker := withAttacker(t, h.root)
	for _, p := range []string{"/etc/shadow", "/etc/gshadow", "/etc/ssh/ssh_host_ed25519_key", "/etc/ssl/private"} {
		ctl, _ := exec.Command(attacker, "read", p).CombinedOutput()
		if strings.Contains(string(ctl), "<nil>") && p == "/etc/ssl/private" {
			continue
		}
		readable := strings.HasSuffix(strings.TrimSpace(string(ctl)), "<nil>")
		out := h.run(t, "./.attacker read "+p+"; ls -la /etc | head -80", 0)
		if strings.Contains(out, `<nil>`) {
			t.Errorf("at level %s a command read %s:\n%s", level, p, out)
		}
		if !readable {
			t.Logf("%s is not readable here outside the sandbox either (%s): this check has no control", p, strings.TrimSpace(string(ctl)))
		}
	}
}

// The session keyring: the parent test makes a new one on a locked thread,
// puts a key in it and starts this test binary from that thread, so the
// child process has the key in its session keyring as agent-lsp would.
const keyChildEnv = "AGENT_LSP_TEST_KEYRING_CHILD"

func TestHostileSessionKeyringIsNotInherited(t *testing.T) {
	if os.Getenv(keyChildEnv) != "" {
		t.Skip("the child's part runs in TestHostileSessionKeyringChild")
	}
	needSandbox(t)
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "mine\n"})
	withAttacker(t, root)
	desc := "agent-lsp-test-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	payload := "KEY-CANARY-" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	out := make(chan []byte, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread and its keyring end with the goroutine
		if _, _, errno := unix.RawSyscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0); errno != 0 {
			out <- []byte("SKIP: no keyring here: " + errno.Error())
			return
		}
		if _, err := addKey(desc, payload); err != nil {
			out <- []byte("SKIP: add_key: " + err.Error())
			return
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestHostileSessionKeyringChild$", "-test.v")
		cmd.Env = append(os.Environ(), keyChildEnv+"="+desc, "AGENT_LSP_TEST_KEYRING_ROOT="+root)
		b, _ := cmd.CombinedOutput()
		out <- b
	}()
	got := string(<-out)
	if rest, ok := strings.CutPrefix(got, "SKIP: "); ok {
		t.Skip(rest)
	}
	inside, outside, _ := strings.Cut(got, "CONTROL:")
	if strings.Contains(inside, payload) || !strings.Contains(inside, "SANDBOXED:") {
		t.Errorf("the command read the session keyring's key (or did not run):\n%s", got)
	}
	if !strings.Contains(outside, payload) {
		t.Errorf("control: the same program outside did not read the key, the detector is blind:\n%s", got)
	}
}

func addKey(desc, payload string) (int, error) {
	typ, _ := unix.BytePtrFromString("user")
	d, _ := unix.BytePtrFromString(desc)
	p := []byte(payload)
	id, _, errno := unix.Syscall6(unix.SYS_ADD_KEY, uintptr(unsafe.Pointer(typ)), uintptr(unsafe.Pointer(d)),
		uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), uintptr(0xfffffffd) /* KEY_SPEC_SESSION_KEYRING */, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(id), nil
}

func TestHostileSessionKeyringChild(t *testing.T) {
	desc := os.Getenv(keyChildEnv)
	if desc == "" {
		t.Skip("run by TestHostileSessionKeyringIsNotInherited")
	}
	root := os.Getenv("AGENT_LSP_TEST_KEYRING_ROOT")
	w, err := NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	out, err := w.RunCommand(context.Background(), "./.attacker key "+desc+"; cat /proc/keys", time.Minute, 100_000)
	fmt.Printf("SANDBOXED: %s %v\n", out.Output, err)
	ctl, _ := exec.Command(filepath.Join(root, ".attacker"), "key", desc).CombinedOutput()
	fmt.Printf("CONTROL: %s\n", ctl)
}

func TestHostileHomeAndCacheStartEmptyForEveryRun(t *testing.T) {
	needSandbox(t)
	root := t.TempDir()
	writeTree(t, root, map[string]string{"go.mod": "module m\n\ngo 1.22\n"})
	implant := `mkdir -p ~/.config/go && echo 'GOFLAGS=-tags=implanted' > ~/.config/go/env && printf '[alias]\n\tst = !echo IMPLANTED\n' > ~/.gitconfig && echo 'echo IMPLANTED' >> ~/.bashrc && mkdir -p "$GOCACHE" && echo implanted > "$GOCACHE/implanted" && echo planted`
	check := `go env GOFLAGS; git config --global --get alias.st; cat ~/.bashrc; ls "$GOCACHE"; echo checked`
	run := func(command string) string {
		w, err := NewWorkspace(root, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		w.SetSandbox(SandboxOptions{Env: os.Environ()})
		out, err := w.RunCommand(context.Background(), command, 2*time.Minute, 100_000)
		if err != nil {
			t.Fatal(err)
		}
		return out.Output
	}
	if out := run(implant); !strings.Contains(out, "planted") {
		t.Fatalf("the implant did not run:\n%s", out)
	}
	if out := run(check); strings.Contains(out, "IMPLANTED") || strings.Contains(out, "implanted") || !strings.Contains(out, "checked") {
		t.Errorf("the next run found what the last one left in its home or cache:\n%s", out)
	}
	// The control: a home and cache kept between two runs carry the implant.
	home := toolstest.Home(t)
	env := append(os.Environ(), "HOME="+home, "GOCACHE="+filepath.Join(home, "cache"), "GOFLAGS=", "XDG_CONFIG_HOME=")
	for i, c := range []string{implant, check} {
		cmd := exec.Command("bash", "-c", c)
		cmd.Dir, cmd.Env = root, env
		out, _ := cmd.CombinedOutput()
		if i == 1 && !strings.Contains(string(out), "IMPLANTED") {
			t.Errorf("control: a kept home did not carry the implant, the detector is blind:\n%s", out)
		}
	}
}

func TestHostileFillingTheDiskIsBounded(t *testing.T) {
	level := needSandbox(t)
	const limit = 16 << 20
	h := newHostile(t, map[string]string{"a.txt": "mine\n"}, sandbox.Limits{Disk: limit})
	fill := "for i in $(seq 80); do head -c 1048576 /dev/zero > fill$i || break; sleep 0.02; done; echo finished"
	out := h.run(t, fill, 60)
	if !strings.Contains(out, "disk limit") && !strings.Contains(out, "No space left") {
		t.Errorf("at level %s the command wrote 80 MiB past a 16 MiB bound:\n%s", level, out)
	}
	inViewDir(t, h.ws, func(dir string) {
		if used := dirUsage(dir); used > 3*limit {
			t.Errorf("the view holds %d MiB after the command, the bound is %d MiB", used>>20, limit>>20)
		}
	})
	if level == sandbox.Full {
		out := h.run(t, "head -c 64000000 /dev/zero > /tmp/big; echo tmp:$?; head -c 64000000 /dev/zero > ~/big; echo home:$?", 60)
		if !strings.Contains(out, "No space left") && !strings.Contains(out, "disk limit") {
			t.Errorf("the private tmp and home took 128 MB past a 16 MiB bound:\n%s", out)
		}
	}
	// The control: the same command outside writes all 80 MiB, which the
	// detector measures.
	scratch := t.TempDir()
	cmd := exec.Command("bash", "-c", fill)
	cmd.Dir = scratch
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("control: %v %s", err, b)
	}
	if used := dirUsage(scratch); used <= 3*limit {
		t.Errorf("control: the detector measured %d MiB for 80 MiB written", used>>20)
	}
}

func dirUsage(dir string) int64 {
	var total int64
	filepath.WalkDir(dir, func(_ string, e os.DirEntry, err error) error {
		if err == nil {
			if fi, err := e.Info(); err == nil {
				total += fi.Sys().(*syscall.Stat_t).Blocks * 512
			}
		}
		return nil
	})
	return total
}

func TestHostileInheritedDescriptorsGroupsAndCapabilities(t *testing.T) {
	level := needSandbox(t)
	// A descriptor the parent (an editor, say) left open without
	// close-on-exec: every process this one starts inherits it.
	fd, err := syscall.Open(os.Args[0], syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	h := newHostile(t, map[string]string{"a.txt": "mine\n"}, sandbox.Limits{})
	// The spare helper started before the descriptor existed: run past it.
	var out string
	for range 3 {
		out = h.run(t, "ls /proc/self/fd | sort -n | tr '\\n' ' '; echo; grep -E '^(Groups|CapEff|CapBnd):' /proc/self/status; unshare -U true && echo unshared", 0)
	}
	fds, _, _ := strings.Cut(out, "\n")
	if strings.TrimSpace(fds) != "0 1 2 3" {
		t.Errorf("the command inherited descriptors beyond stdio (and ls's own): %q\n%s", fds, out)
	}
	if strings.Contains(out, "unshared") {
		t.Errorf("the command made a user namespace of its own:\n%s", out)
	}
	if level == sandbox.Full || os.Geteuid() == 0 {
		for _, want := range []string{"CapEff:\t0000000000000000", "CapBnd:\t0000000000000000"} {
			if !strings.Contains(out, want) {
				t.Errorf("the command kept capabilities (want %q):\n%s", want, out)
			}
		}
	}
	if os.Geteuid() == 0 && !regexp.MustCompile(`(?m)^Groups:\s*$`).MatchString(out) {
		t.Errorf("the command kept supplementary groups:\n%s", out)
	}
	// The control: a plain child inherits the descriptor.
	ctl, _ := exec.Command("bash", "-c", "ls /proc/self/fd").Output()
	if !strings.Contains(" "+strings.Join(strings.Fields(string(ctl)), " ")+" ", " "+strconv.Itoa(fd)+" ") {
		t.Errorf("control: a plain child does not show descriptor %d (%q): the detector is blind", fd, ctl)
	}
}

// killedParentEnv makes this test binary a process that runs a command and
// is killed with SIGKILL in the middle of it.
const killedParentEnv = "AGENT_LSP_TEST_KILLED_PARENT"

func TestHostileKilledParentMidCommand(t *testing.T) {
	if marker := os.Getenv(killedParentEnv); marker != "" {
		root := os.Getenv("AGENT_LSP_TEST_KILLED_ROOT")
		w, _ := NewWorkspace(root, nil)
		w.Stage("staged.txt", "staged\n")
		w.RunCommand(context.Background(), "sleep "+marker, time.Hour, 1000)
		return
	}
	needSandbox(t)
	marker := toolstest.Marker()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "mine\n"})
	child := exec.Command(os.Args[0], "-test.run=^TestHostileKilledParentMidCommand$")
	child.Env = append(os.Environ(), killedParentEnv+"="+marker, "AGENT_LSP_TEST_KILLED_ROOT="+root, toolstest.ChildCacheEnv+"="+t.TempDir())
	child.Stdout, child.Stderr = io.Discard, io.Discard
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	toolstest.Poll(t, "the command to start", func() bool { return len(toolstest.Alive(marker)) > 0 })
	left := func() []string {
		m, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("agent-lsp-*-%d.*", child.Process.Pid)))
		return m
	}
	if len(left()) == 0 {
		child.Process.Kill()
		t.Fatal("control: the running command's view is not where the sweep looks")
	}
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	toolstest.Poll(t, "the command to die with its parent", func() bool { return len(toolstest.Alive(marker)) == 0 })
	if len(left()) == 0 {
		t.Fatal("control: the killed process left nothing, so the sweep is not tested")
	}
	sandbox.Sweep() // what the next start does
	if l := left(); len(l) > 0 {
		t.Errorf("the next start left the killed process's dirs: %v", l)
	}
}

func TestHostileSyscallsTheFilterRefuses(t *testing.T) {
	needSandbox(t)
	h := newHostile(t, map[string]string{"a.txt": "mine\n"}, sandbox.Limits{})
	attacker := withAttacker(t, h.root)
	out := h.run(t, "./.attacker syscalls", 0)
	ctl, _ := exec.Command(attacker, "syscalls").CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(ctl)), "\n") {
		name, outside, _ := strings.Cut(line, ": ")
		if !strings.Contains(out, name+": operation not permitted") {
			t.Errorf("%s got past the filter (inside: %q):\n%s", name, line, out)
		}
		// The control: outside, the call reaches the kernel (which answers
		// something else), so EPERM inside is the filter's.
		if outside == "operation not permitted" && name != "init_module" && name != "ptrace" {
			t.Errorf("control: %s is refused outside too (%s): the check proves nothing", name, outside)
		}
	}
}
