//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// serverView is the view a language server of the workspace ws gets at
// this machine's level, as the tools package makes it: at full level the
// overlay of staged over ws (no upper layer), below it the workspace
// itself.
func serverView(t *testing.T, ws string, staged map[string]string) View {
	t.Helper()
	if c := Probe(); c.Level == Full && c.Mounts == "overlay" {
		dir := t.TempDir()
		toolstest.WriteFiles(t, dir, staged)
		return View{Root: ws, Lower: ws, Staged: dir}
	}
	toolstest.WriteFiles(t, ws, staged) // no layer to stage into: the workspace has them
	return View{Root: ws}
}

// startServer starts argv as a server of ws through Start, with this
// process's environment and a cache of the test's; it is killed and waited
// for when the test ends.
func startServer(t *testing.T, ws string, view View, argv ...string) (*Process, string) {
	t.Helper()
	cache := t.TempDir()
	var stderr strings.Builder
	p, err := Start(context.Background(), Spec{Argv: argv, View: view, Cache: cache, Env: os.Environ(), Stderr: &lockedWriter{w: &stderr},
		Limits: Limits{Memory: 1 << 30, Processes: 256}})
	if err != nil {
		t.Fatalf("Start %v: %v", argv, err)
	}
	t.Cleanup(func() {
		p.Kill()
		p.Wait()
		if t.Failed() {
			t.Logf("the server's stderr:\n%s", stderr.String())
		}
	})
	return p, cache
}

// ourTempDirs are the dirs this process made in the temp dir (MkdirTemp).
func ourTempDirs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "agent-lsp-") && strings.Contains(e.Name(), "-"+ownTag()+"-") && !strings.HasPrefix(e.Name(), "agent-lsp-view-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// A server's stdin and stdout are pipes: what goes in comes out (cat), in
// the view, and once its stdin is closed it exits 0, leaving no scratch
// dir behind.
func TestStartRoundTrip(t *testing.T) {
	before := ourTempDirs(t)
	ws := toolstest.WriteTree(t, map[string]string{"main.go": "package main\n"})
	p, _ := startServer(t, ws, serverView(t, ws, map[string]string{"go.mod": "module staged\n"}), "cat")
	if p.Dir() != ws {
		t.Errorf("Dir %q, want the workspace %q", p.Dir(), ws)
	}
	if !p.World().Server || p.World().Limits.Timeout != 0 {
		t.Errorf("its world: Server %v, timeout %v", p.World().Server, p.World().Limits.Timeout)
	}
	in := bufio.NewReader(p.Stdout())
	for _, line := range []string{"Content-Length: 2\r\n", "{}\r\n"} {
		if _, err := io.WriteString(p.Stdin(), line); err != nil {
			t.Fatal(err)
		}
		got, err := in.ReadString('\n')
		if err != nil || got != line {
			t.Fatalf("read %q, %v; want %q", got, err, line)
		}
	}
	p.Stdin().Close()
	res, err := p.Wait()
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Wait: %+v, %v", res, err)
	}
	if rest, _ := io.ReadAll(in); len(rest) != 0 {
		t.Errorf("more output: %q", rest)
	}
	if after := ourTempDirs(t); !slices.Equal(before, after) {
		t.Errorf("left in the temp dir: %v (before: %v)", after, before)
	}
}

// The server sees the workspace with the staged build files, cannot write
// there, and writes its cache and home; Kill kills it and the child it
// started, and removes its cgroup.
func TestStartReadOnlyViewAndKill(t *testing.T) {
	ws := toolstest.WriteTree(t, map[string]string{"main.go": "package main\n"})
	marker := toolstest.Marker()
	script := `cat go.mod; echo x > main.go && echo workspace-written; echo x > new.txt && echo workspace-created
mkdir -p "$XDG_CACHE_HOME/s" && echo c > "$XDG_CACHE_HOME/s/cached" && echo cache-written
echo h > "$HOME/h" && echo home-written
sleep ` + marker + ` &
echo started
wait`
	p, cache := startServer(t, ws, serverView(t, ws, map[string]string{"go.mod": "module staged\n"}), "bash", "-c", script)
	out := bufio.NewScanner(p.Stdout())
	var lines []string
	for out.Scan() && out.Text() != "started" {
		lines = append(lines, out.Text())
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{"module staged", "cache-written", "home-written"} {
		if !strings.Contains(got, want) {
			t.Errorf("the server's output lacks %q:\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(cache, "xdg", "s", "cached")); err != nil {
		t.Errorf("its cache holds nothing it wrote: %v", err)
	}
	if Probe().Level != None {
		for _, leak := range []string{"workspace-written", "workspace-created"} {
			if strings.Contains(got, leak) {
				t.Errorf("the server wrote in its view (%s):\n%s", leak, got)
			}
		}
		if data, _ := os.ReadFile(filepath.Join(ws, "main.go")); string(data) != "package main\n" {
			t.Errorf("main.go is now %q", data)
		}
	}
	toolstest.Poll(t, "the server's child", func() bool { return len(toolstest.Alive(marker)) > 0 })
	cgroups := cgroupsOf(p.Pid())
	p.Kill()
	p.Kill() // idempotent
	res, err := p.Wait()
	if err != nil || res.ExitCode != 128+9 {
		t.Errorf("Wait after Kill: %+v, %v", res, err)
	}
	toolstest.Poll(t, "the server's child to die", func() bool { return len(toolstest.Alive(marker)) == 0 })
	for _, cg := range cgroups {
		if _, err := os.Stat(cg); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("its cgroup %s is left: %v", cg, err)
		}
	}
	if Probe().Level != None && Probe().cgroups() && len(cgroups) == 0 {
		t.Error("the server ran in no cgroup of its own")
	}
}

// cgroupsOf are the cgroup dirs of this package's making that pid is in.
func cgroupsOf(pid int) []string {
	data, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cgroup"))
	var dirs []string
	for _, l := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(l, ":", 3)
		if len(parts) != 3 || !strings.Contains(parts[2], "/agent-lsp-") {
			continue
		}
		controller := parts[1]
		if controller == "" {
			dirs = append(dirs, filepath.Join(cgroupRoot, parts[2]))
			continue
		}
		for _, c := range strings.Split(controller, ",") {
			if c == "pids" || c == "memory" {
				dirs = append(dirs, filepath.Join(cgroupRoot, c, parts[2]))
			}
		}
	}
	return dirs
}

// A server that cannot start is an error that names it; nothing is left.
func TestStartErrors(t *testing.T) {
	before := ourTempDirs(t)
	ws := toolstest.WriteTree(t, map[string]string{"main.go": "package main\n"})
	for _, c := range []struct {
		name string
		spec Spec
		want string
	}{
		{"no argv", Spec{View: View{Root: ws}}, "needs its argv"},
		{"not installed", Spec{Argv: []string{"no-such-language-server"}, View: View{Root: ws}, Env: os.Environ()}, "no-such-language-server"},
		{"relative path", Spec{Argv: []string{"./gopls"}, View: View{Root: ws}, Env: os.Environ()}, "absolute path"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Start(context.Background(), c.spec)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				if p != nil {
					p.Kill()
					p.Wait()
				}
				t.Fatalf("Start: %v, want an error with %q", err, c.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if p, err := Start(ctx, Spec{Argv: []string{"cat"}, View: View{Root: ws}, Env: os.Environ()}); err == nil {
		// Level none starts without waiting on anything ctx could end.
		p.Kill()
		p.Wait()
		if Probe().Level != None {
			t.Error("Start with a done context started the server")
		}
	}
	if after := ourTempDirs(t); !slices.Equal(before, after) {
		t.Errorf("left in the temp dir: %v (before: %v)", after, before)
	}
}

// The server's world at every level: the view read-only, its cache its
// own and writable, its bounds, no timeout, no network, Go kept off it,
// none of the caller's secrets.
func TestServerWorld(t *testing.T) {
	layer := NewLayer()
	defer layer.Close()
	spec := goldenSpec()
	goldenServer("/home/u/go/bin/gopls")(&spec)
	for _, c := range []struct {
		caps    Caps
		view    View
		scratch string
	}{
		{linuxCaps(Full), View{Root: "/home/u/src/app", Lower: "/home/u/src/app", Staged: goldenView + "/staged", Layer: layer}, ""},
		{linuxCaps(Full), View{Root: "/home/u/src/app", Copy: goldenView + "/copy"}, ""},
		{linuxCaps(Landlock), View{Root: "/home/u/src/app", Copy: goldenView + "/copy"}, goldenScratch},
		{linuxCaps(Landlock), View{Root: "/home/u/src/app"}, goldenScratch},
		{Caps{Level: None}, View{Root: "/home/u/src/app"}, goldenScratch},
	} {
		spec.View = c.view
		w, err := goldenHost(linuxHost(), "linux").world(c.caps, spec, c.scratch)
		if err != nil {
			t.Fatal(err)
		}
		name := string(c.caps.Level) + " " + c.view.Copy
		if !w.Server || w.Limits.Timeout != 0 || w.Limits.CPU != 0 || !slices.Equal(w.Argv, spec.Argv) {
			t.Errorf("%s: server %v, timeout %v, cpu %v, argv %v", name, w.Server, w.Limits.Timeout, w.Limits.CPU, w.Argv)
		}
		for _, kv := range []string{"GOTOOLCHAIN=local", "GOPROXY=off", "GOSUMDB=off"} {
			if !slices.Contains(w.Env, kv) {
				t.Errorf("%s: no %s in %v", name, kv, w.Env)
			}
		}
		for _, kv := range w.Env {
			if strings.Contains(kv, "canary") || strings.HasPrefix(kv, "GOFLAGS=") || strings.HasPrefix(kv, "LD_PRELOAD=") {
				t.Errorf("%s: the server gets %s", name, kv)
			}
		}
		if c.caps.Level == None {
			continue
		}
		if w.Limits.Memory != 2<<30 || w.Limits.Processes != 256 || w.Network.Cut == "" {
			t.Errorf("%s: memory %d, processes %d, network %+v", name, w.Limits.Memory, w.Limits.Processes, w.Network)
		}
		view := serverDir(c.view)
		if c.caps.Level == Full {
			view = c.view.Root
			i := slices.IndexFunc(w.Mounts, func(m Mount) bool { return m.Kind == MountView })
			if i < 0 || w.Mounts[i].RW || w.View.Upper != "" || w.View.Layer != nil {
				t.Errorf("%s: the view is writable: %+v %+v", name, w.Mounts, w.View)
			}
			if !slices.Contains(w.Mounts, Mount{Kind: MountBind, Target: "/home/u/.cache", Source: goldenCache, RW: true}) {
				t.Errorf("%s: its cache is not bound writable at its home's .cache: %+v", name, w.Mounts)
			}
		}
		if slices.Contains(w.Landlock.RW, view) || !slices.Contains(w.Landlock.RO, view) {
			t.Errorf("%s: Landlock lets it write its view %s: %+v", name, view, w.Landlock)
		}
		if c.caps.Level == Landlock && !slices.Contains(w.Landlock.RW, goldenCache) {
			t.Errorf("%s: Landlock keeps it from its cache: %+v", name, w.Landlock)
		}
		if w.Dir != view {
			t.Errorf("%s: runs in %s, not its view %s", name, w.Dir, view)
		}
	}
}

// ServerNeedsApproval: below full, a server's start is asked first.
func TestServerNeedsApproval(t *testing.T) {
	for level, want := range map[Level]bool{Full: false, Landlock: true, None: true, Seatbelt: true} {
		if got := (Caps{Level: level}).ServerNeedsApproval(); got != want {
			t.Errorf("%s: %v", level, got)
		}
	}
}

// A program in the workspace gets nothing of where its links lead.
func TestServerInstallOutsideWorkspaceOnly(t *testing.T) {
	f := linuxHost()
	f.links(map[string]string{"/home/u/src/app/.venv/bin/python": "/home/u/.ssh/x"})
	if got := serverInstall(f, "/home/u/src/app/.venv/bin/python", View{Root: "/home/u/src/app"}); got != nil {
		t.Errorf("a workspace's program is granted %v", got)
	}
	want := []string{"/opt/lsp/node_modules"}
	if got := serverInstall(f, "/opt/lsp/node_modules/.bin/typescript-language-server", View{Root: "/home/u/src/app"}); !slices.Equal(got, want) {
		t.Errorf("an npm package's server: %v, want %v", got, want)
	}
}

// lockedWriter serialises writes to w (a server's stderr is copied from
// another goroutine while the test may read it).
type lockedWriter struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Servers in a Group are bounded together: each one's cgroup is in the
// group's, which holds the group's limits, and a server within its own
// memory limit but past the group's is killed; Close removes the group.
func TestServerGroup(t *testing.T) {
	g, err := NewGroup(Limits{Memory: 96 << 20, Processes: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	want := Probe().Level != None && Probe().cgroups()
	if g.Bounded() != want {
		t.Fatalf("Bounded %v at level %s with cgroups %v", g.Bounded(), Probe().Level, Probe().cgroups())
	}
	if !want {
		t.Skip("no cgroups here: a group bounds nothing together")
	}
	groupDirs := slices.Clone(g.cg.dirs)
	ws := toolstest.WriteTree(t, map[string]string{"main.go": "package main\n"})
	start := func(argv ...string) *Process {
		p, err := Start(t.Context(), Spec{Argv: argv, View: serverView(t, ws, nil), Cache: t.TempDir(), Env: os.Environ(), Group: g,
			Limits: Limits{Memory: 1 << 30, Processes: 256}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Kill(); p.Wait() })
		return p
	}
	a, b := start("cat"), start("cat")
	for _, p := range []*Process{a, b} {
		if p.World().Group == nil || p.World().Group.Memory != 96<<20 {
			t.Errorf("its world says no group: %+v", p.World().Group)
		}
		cgs := cgroupsOf(p.Pid())
		if len(cgs) == 0 {
			t.Errorf("server %d is in no cgroup of ours", p.Pid())
		}
		for _, cg := range cgs {
			if !slices.ContainsFunc(groupDirs, func(d string) bool { return strings.HasPrefix(cg, d+"/") }) {
				t.Errorf("its cgroup %s is not in the group's %v", cg, groupDirs)
			}
		}
	}
	for _, p := range []*Process{a, b} {
		p.Kill()
		p.Wait()
	}
	if data, _ := os.ReadFile("/proc/swaps"); strings.Count(string(data), "\n") <= 1 {
		// No swap: past the group's memory the kernel kills.
		hog := start("bash", "-c", `x=$(head -c 200000000 /dev/zero | tr '\0' a); echo survived ${#x}`)
		out, _ := readAll(hog)
		if res, _ := hog.Wait(); res.ExitCode == 0 || strings.Contains(out, "survived") {
			t.Errorf("a server used 200 MB in a group of 96 MiB: exit %d, %q", res.ExitCode, out)
		}
	}
	g.Close()
	for _, d := range groupDirs {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the group's cgroup %s is left: %v", d, err)
		}
	}
}
