//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// world is a workspace with a .git, an overlay's dirs, private dirs, and a
// secret outside all of them. Where the level bounds a view's writes, its
// overlay's upper and work dirs and its cache are a layer's, as a
// workspace's are (tools/command_view.go).
type world struct {
	ws, upper, work, home, cache, secret string
	layer                                *Layer
}

func newWorld(t testing.TB) world {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := world{ws: filepath.Join(root, "ws"), upper: filepath.Join(root, "upper"), work: filepath.Join(root, "work"),
		home: filepath.Join(root, "home"), cache: filepath.Join(root, "cache"), secret: filepath.Join(root, "secret")}
	for _, d := range []string{filepath.Join(w.ws, ".git"), w.upper, w.work, w.home, w.cache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, content := range map[string]string{filepath.Join(w.ws, "a.txt"): "lower\n", filepath.Join(w.ws, ".git", "config"): "[core]\n", w.secret: "TOP-SECRET\n"} {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.layer = newLayerIfBounded(t)
	return w
}

// newLayerIfBounded is a view's layer, closed with t, where the level
// bounds a view's writes; else nil.
func newLayerIfBounded(t testing.TB) *Layer {
	if c := Probe(); c.Level != Full || !c.Bounded {
		return nil
	}
	l := NewLayer()
	if t != nil {
		t.Cleanup(func() { l.Close() })
	}
	return l
}

func (w world) spec(command string, out, errs *strings.Builder) Spec {
	s := Spec{Command: command, View: View{Root: w.ws, Lower: w.ws, Upper: w.upper, Work: w.work, Layer: w.layer},
		Cache: w.cache, Env: append(os.Environ(), "OPENAI_API_KEY=sk-canary", "AGENT_LSP_MODEL=x"),
		Stdout: out, Stderr: errs}
	if w.layer != nil {
		s.Cache = "" // the layer's
	}
	return s
}

// upperFile reads what a command wrote at name in the view.
func (w world) upperFile(name string) string {
	if w.layer == nil {
		data, _ := os.ReadFile(filepath.Join(w.upper, name))
		return string(data)
	}
	var data []byte
	w.layer.Within("upper", func(dir string) error {
		data, _ = os.ReadFile(filepath.Join(dir, name))
		return nil
	})
	return string(data)
}

func needFull(t *testing.T) {
	t.Helper()
	if c := Probe(); c.Level != Full {
		t.Skipf("sandbox level here is %s: this kernel refuses namespaces or Landlock", c)
	}
}

func TestFullLevelSeesTheViewAndNothingElse(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	var out, errs strings.Builder
	res, err := Run(context.Background(), w.spec(`pwd; cat a.txt; echo new > b.txt; echo changed > a.txt
touch .git/hook 2>/dev/null || echo git-read-only
cat `+w.secret+` 2>/dev/null || echo secret-unreadable
echo "parent holds: $(ls -A `+filepath.Dir(w.ws)+`)"
echo "pid 1 is $(tr '\0' ' ' < /proc/1/cmdline)"; env`, &out, &errs))
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("res %+v err %v\n%s%s", res, err, out.String(), errs.String())
	}
	got := out.String()
	for _, want := range []string{w.ws + "\nlower\n", "git-read-only", "secret-unreadable", "parent holds: ws\n", "pid 1 is " + helperName, "HOME=" + privateHome(w.ws)} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	for _, leak := range []string{"sk-canary", "AGENT_LSP_MODEL", "TOP-SECRET"} {
		if strings.Contains(got, leak) {
			t.Errorf("output holds %q:\n%s", leak, got)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(w.ws, "a.txt")); string(data) != "lower\n" {
		t.Errorf("the workspace changed: %q", data)
	}
	if data := w.upperFile("b.txt"); data != "new\n" {
		t.Errorf("the command's write is not in the upper dir: %q", data)
	}
}

func TestFullLevelSetUpFailureIsAnError(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	var out, errs strings.Builder
	spec := w.spec("echo ran", &out, &errs)
	spec.View.Upper, spec.View.Layer = filepath.Join(w.upper, "missing"), nil
	_, err := Run(context.Background(), spec)
	if err == nil || !strings.Contains(err.Error(), "overlay") || strings.Contains(out.String(), "ran") {
		t.Fatalf("err %v, output %q: want a set-up error and nothing run", err, out.String())
	}
}

// TestLandlockLevelConfines runs the level a machine without user
// namespaces gets: the command in a copy, Landlock around it.
func TestLandlockLevelConfines(t *testing.T) {
	abi := landlockABI()
	if abi == 0 {
		t.Skip("this kernel has no Landlock")
	}
	w := newWorld(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	connected := make(chan bool, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			connected <- true
			c.Close()
		}
	}()
	var out, errs strings.Builder
	spec := w.spec(`echo copy > mine.txt && cat mine.txt
echo x > `+w.secret+` 2>/dev/null || echo outside-read-only
cat `+w.secret+` 2>/dev/null || echo secret-unreadable
echo x > /dev/shm/agent-lsp-landlock-test 2>/dev/null || echo shm-closed
echo leak > /dev/tcp/`+strings.Replace(ln.Addr().String(), ":", "/", 1)+` 2>/dev/null || echo tcp-refused`, &out, &errs)
	spec.View, spec.Cache = View{Root: w.ws, Copy: w.ws}, w.cache
	res, err := run(context.Background(), Caps{Level: Landlock, LandlockABI: abi}, spec)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("res %+v err %v\n%s%s", res, err, out.String(), errs.String())
	}
	wants := []string{"copy\n", "outside-read-only", "secret-unreadable", "shm-closed"}
	if abi >= 4 {
		wants = append(wants, "tcp-refused")
	}
	for _, want := range wants {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	select {
	case <-connected:
		t.Error("a TCP connection reached the host")
	default:
	}
}

func TestEnvironmentAllowlist(t *testing.T) {
	env := environ([]string{"PATH=/bin", "LC_ALL=C", "GOFLAGS=-toolexec=x", "GIT_CONFIG_PARAMETERS=x", "LD_PRELOAD=x", "BASH_ENV=x",
		"OPENAI_API_KEY=k", "GITHUB_TOKEN=t", "AGENT_LSP_PROVIDER=p", "AWS_SECRET_ACCESS_KEY=s", "HOME=/root"}, "/h", "/t", "/c", "")
	joined := strings.Join(env, "\n")
	for _, want := range []string{"PATH=/bin", "LC_ALL=C", "HOME=/h", "TMPDIR=/t", "GOCACHE=/c/go-build"} {
		if !strings.Contains(joined, want) {
			t.Errorf("environment lacks %s", want)
		}
	}
	for _, gone := range []string{"GOFLAGS", "GIT_CONFIG_PARAMETERS", "LD_PRELOAD", "BASH_ENV", "OPENAI_API_KEY", "GITHUB_TOKEN", "AGENT_LSP", "AWS_SECRET", "HOME=/root"} {
		if strings.Contains(joined, gone) {
			t.Errorf("environment holds %s:\n%s", gone, joined)
		}
	}
}

func TestToolDirsNeverIncludeHome(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".rustup"), 0o755)
	os.MkdirAll(filepath.Join(home, ".cargo", "bin"), 0o755)
	got := toolDirs(strings.Join([]string{"/usr/bin", home, filepath.Dir(home), "/", "relative/bin", filepath.Join(home, ".cargo", "bin")}, ":"), home)
	want := []string{"/usr/bin", filepath.Join(home, ".cargo", "bin"), filepath.Join(home, ".rustup")}
	if strings.Join(got, ":") != strings.Join(want, ":") {
		t.Fatalf("toolDirs = %v, want %v", got, want)
	}
}

// TestNetworkOnlyWithTheOptIn judges by what reached a listener on the
// host, not by the command's output alone: a connection the command made
// is in the listener's queue by the time the command has ended.
func TestNetworkOnlyWithTheOptIn(t *testing.T) {
	needFull(t)
	for _, network := range []bool{false, true} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		w := newWorld(t)
		var out, errs strings.Builder
		spec := w.spec("echo sandboxed > /dev/tcp/"+strings.Replace(ln.Addr().String(), ":", "/", 1)+" && echo connected", &out, &errs)
		spec.Network = network
		res, err := Run(context.Background(), spec)
		if err != nil || res.Exceeded != "" || (network && res.ExitCode != 0) {
			t.Fatalf("network %v: %+v %v\n%s%s", network, res, err, out.String(), errs.String())
		}
		if got := strings.Contains(out.String(), "connected"); got != network {
			t.Errorf("network %v: the command says connected %v (%s%s)", network, got, out.String(), errs.String())
		}
		received := acceptOne(ln, network)
		if network && received != "sandboxed\n" {
			t.Errorf("network true: the listener received %q", received)
		}
		if !network && received != "" {
			t.Errorf("network false: a connection reached the host and sent %q", received)
		}
	}
}

// acceptOne returns what the first connection queued on ln sent ("" if
// none came). A connection the command made was queued before it ended, so
// where none is expected a second is plenty; where one is, the bound only
// keeps a broken run from hanging.
func acceptOne(ln net.Listener, wait bool) string {
	bound := time.Second
	if wait {
		bound = 30 * time.Second
	}
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(bound))
	c, err := ln.Accept()
	if err != nil {
		return ""
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(bound))
	data, _ := io.ReadAll(c)
	return string(data)
}

func TestStaleCgroupsOfDeadProcessesAreRemoved(t *testing.T) {
	_, parents := cgroupParents()
	if Probe().Cgroup == "" || len(parents) == 0 {
		t.Skip("this process may not make cgroups here")
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	var made []string
	for _, parent := range parents {
		for _, pid := range []int{dead.Process.Pid, os.Getpid()} {
			dir := filepath.Join(parent, fmt.Sprintf("agent-lsp-%d-999", pid))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			made = append(made, dir)
			t.Cleanup(func() { os.Remove(dir) })
		}
	}
	removeStaleCgroups()
	for _, dir := range made {
		_, err := os.Stat(dir)
		if stale := strings.Contains(dir, fmt.Sprint(dead.Process.Pid)); stale != os.IsNotExist(err) {
			t.Errorf("%s: exists %v, want removed only if its process is dead", dir, err == nil)
		}
	}
}

func TestASpareHelperKilledWhileWaitingIsReplaced(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	run := func() string {
		var out, errs strings.Builder
		if _, err := Run(context.Background(), w.spec("echo ran", &out, &errs)); err != nil {
			t.Fatalf("%v %s", err, errs.String())
		}
		return out.String()
	}
	run()
	var spare *helperProc
	toolstest.Poll(t, "a spare helper", func() bool {
		warmMu.Lock()
		defer warmMu.Unlock()
		spare = warm[usualKind(Probe(), nsFlags)]
		return spare != nil
	})
	spare.kill()
	toolstest.Poll(t, "the spare to die", func() bool { return !spare.alive() })
	if got := run(); got != "ran\n" {
		t.Fatalf("after the spare died: %q", got)
	}
}

// The plan pins what the root hides: runc's masks under /proc, /proc/sys
// and the like read-only, no /sys at all.
func TestThePlanMasksProc(t *testing.T) {
	ops := thisHost().rootPlan(nil, View{Root: "/w", Lower: "/w"}, "/home/u", "", Limits{}.withDefaults(), true)
	got := map[string]Mount{}
	for _, op := range ops {
		got[op.Target] = op
		if op.Target == "/sys" || strings.HasPrefix(op.Target, "/sys/") {
			t.Errorf("the root has %s: it mounts no /sys", op.Target)
		}
	}
	for target, want := range map[string]Mount{
		"/proc/keys":          {Kind: MountMask, Target: "/proc/keys"},
		"/proc/timer_list":    {Kind: MountMask, Target: "/proc/timer_list"},
		"/proc/acpi":          {Kind: MountMask, Target: "/proc/acpi"},
		"/proc/sys":           {Kind: MountRO, Target: "/proc/sys"},
		"/proc/sysrq-trigger": {Kind: MountRO, Target: "/proc/sysrq-trigger"},
	} {
		if got[target] != want {
			t.Errorf("%s: %+v, want %+v", target, got[target], want)
		}
	}
}

// The plan pins what bounds a command's writes: /tmp and the home are
// dirs of one tmpfs bounded in bytes and files, and the run's cache is the
// view's layer's.
func TestThePlanBoundsWhatCommandsWrite(t *testing.T) {
	ops := thisHost().rootPlan(nil, View{Root: "/w", Lower: "/w", Layer: NewLayer()}, "/home/u", "", Limits{Disk: 64 << 20}.withDefaults(), true)
	got := map[string]Mount{}
	for _, op := range ops {
		got[op.Target] = op
	}
	for target, want := range map[string]Mount{
		"/tmp":           {Kind: MountPrivate, Target: "/tmp", RW: true, Size: 64 << 20, Inodes: 8192, Mode: 0o1777},
		"/home/u":        {Kind: MountPrivate, Target: "/home/u", RW: true, Size: 64 << 20, Inodes: 8192, Mode: 0o700},
		"/home/u/.cache": {Kind: MountLayer, Target: "/home/u/.cache", Source: "cache", RW: true},
	} {
		if got[target] != want {
			t.Errorf("%s: %+v, want %+v", target, got[target], want)
		}
	}
}

// The run's first command makes the view's layer, once even when two start
// together; what each wrote is there for the next, and a closed layer
// runs nothing.
func TestALayerIsMadeOnceAndKeptForTheRun(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	if w.layer == nil {
		t.Skipf("sandbox %s: no layer here", Probe())
	}
	errs := make(chan error, 2)
	for _, name := range []string{"one", "two"} {
		go func() {
			var out, stderr strings.Builder
			_, err := Run(context.Background(), w.spec("echo "+name+" > "+name+".txt", &out, &stderr))
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var out, stderr strings.Builder
	if _, err := Run(context.Background(), w.spec("cat one.txt two.txt", &out, &stderr)); err != nil || out.String() != "one\ntwo\n" {
		t.Fatalf("the next command sees %q (%v %s): want both writes", out.String(), err, stderr.String())
	}
	w.layer.Close()
	if _, err := Run(context.Background(), w.spec("echo ran", &out, &stderr)); !errors.Is(err, ErrLayerClosed) {
		t.Fatalf("a command ran in a view whose layer is closed: %v", err)
	}
}
