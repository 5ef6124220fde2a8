package langserver_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// fakeServers serve .fake files, a project's root being the folder of its
// fake.toml.
var fakeServers = langserver.Servers{{
	Name: "fake", Command: "fake", Extensions: map[string]string{".fake": "fake"}, RootMarkers: []string{"fake.toml"}}}

// oneRun is a run that edits rel: a session, one edit, its end.
func oneRun(t testing.TB, m *langserver.Manager, ws *tools.Workspace, servers langserver.Servers, rel string) langserver.Report {
	s := langserver.NewSession(m, ws, servers)
	defer s.Close()
	abs := filepath.Join(ws.Root(), rel)
	before, _ := ws.Read(rel)
	if _, err := ws.Stage(rel, before.Text+"x\n"); err != nil {
		t.Fatal(err)
	}
	return s.AfterEdit(context.Background(), abs, before.Text)
}

// TestServersStayUnderTheMemoryTotal: with room for two, a third project's
// server stops the least recently used idle one; with both in use it is
// refused, and the run is told why.
func TestServersStayUnderTheMemoryTotal(t *testing.T) {
	f := &fakeServer{pull: true}
	root := toolstest.WriteTree(t, map[string]string{
		"p1/fake.toml": "", "p1/a.fake": "", "p2/fake.toml": "", "p2/a.fake": "", "p3/fake.toml": "", "p3/a.fake": ""})
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	m := langserver.NewManager(langserver.Options{Start: f.start, Memory: 1 << 30, MemoryTotal: 2 << 30,
		LookPath: func(string) (string, error) { return "/fake", nil }})
	defer m.Close()
	for _, p := range []string{"p1", "p2", "p3"} {
		if r := oneRun(t, m, ws, fakeServers, p+"/a.fake"); !strings.Contains(r.Text(), "no new errors") {
			t.Fatalf("%s: %s", p, r.Text())
		}
		if n := m.Running(); n > 2 {
			t.Fatalf("%d servers run under a total for 2", n)
		}
	}
	running := map[string]bool{}
	for _, st := range m.Status() {
		running[filepath.Base(st.Root)] = strings.HasPrefix(st.State, "running")
	}
	if running["p1"] || !running["p2"] || !running["p3"] {
		t.Errorf("the least recently used one was not the one stopped: %+v", m.Status())
	}

	// Two sessions hold p2's and p3's servers: p1's cannot start.
	hold := func(p string) *langserver.Session {
		s := langserver.NewSession(m, ws, fakeServers)
		s.AfterEdit(context.Background(), filepath.Join(root, p, "a.fake"), "")
		return s
	}
	s2, s3 := hold("p2"), hold("p3")
	defer s2.Close()
	defer s3.Close()
	r := oneRun(t, m, ws, fakeServers, "p1/a.fake")
	if !strings.Contains(r.Text(), "memory bound (2048 MiB, 1024 MiB each) is taken by 2 servers in use") {
		t.Errorf("the run is not told: %q", r.Text())
	}
}

// TestIdleServersAreStopped: a server no run used for the idle time ends;
// the next run starts it again.
func TestIdleServersAreStopped(t *testing.T) {
	f := &fakeServer{pull: true}
	root := toolstest.WriteTree(t, map[string]string{"fake.toml": "", "a.fake": ""})
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	m := langserver.NewManager(langserver.Options{Start: f.start, Idle: 20 * time.Millisecond,
		LookPath: func(string) (string, error) { return "/fake", nil }})
	defer m.Close()
	oneRun(t, m, ws, fakeServers, "a.fake")
	toolstest.Poll(t, "the idle server to stop", func() bool { return m.Running() == 0 })
	if st := m.Status(); len(st) != 1 || st[0].State != "stopped (idle)" {
		t.Errorf("status: %+v", st)
	}
	if r := oneRun(t, m, ws, fakeServers, "a.fake"); !strings.Contains(r.Text(), "no new errors") || f.starts.Load() != 2 {
		t.Errorf("after the idle stop: %q, %d starts", r.Text(), f.starts.Load())
	}
}

// processManager starts the scripted server as real processes (this test
// binary, fakeProcessEnv), each carrying marker in its arguments, and the
// servers to use it with.
func processManager(t testing.TB, marker string, idle time.Duration) (*langserver.Manager, langserver.Servers) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	servers := langserver.Servers{{Name: "fake", Command: "fake", Args: []string{marker},
		Extensions: map[string]string{".fake": "fake"}, RootMarkers: []string{"fake.toml"}}}
	return langserver.NewManager(langserver.Options{Start: langservertest.Exec(fakeProcessEnv + "=1"), Idle: idle,
		LookPath: func(string) (string, error) { return self, nil }}), servers
}

// TestRunsLeaveNoServerProcesses: runs that end, idle stops between them,
// and the Manager's Close leave no server process alive.
func TestRunsLeaveNoServerProcesses(t *testing.T) {
	marker := "langserver-" + toolstest.Marker()
	m, servers := processManager(t, marker, 30*time.Millisecond)
	root := toolstest.WriteTree(t, map[string]string{"fake.toml": "", "a.fake": ""})
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for i := range 20 {
		if r := oneRun(t, m, ws, servers, "a.fake"); !strings.Contains(r.Text(), "no new errors") {
			t.Fatalf("run %d: %s", i, r.Text())
		}
		if n := len(toolstest.Alive(marker)); n > 1 {
			t.Fatalf("run %d: %d server processes", i, n)
		}
		if i == 10 {
			toolstest.Poll(t, "the idle server to stop", func() bool { return len(toolstest.Alive(marker)) == 0 })
		}
	}
	m.Close()
	if pids := toolstest.Alive(marker); len(pids) != 0 {
		t.Fatalf("server processes left behind: %v", pids)
	}
}

// TestAStagedBuildFileStartsARunPrivateServer: staging a project's build
// file starts a server for the run alone on its staged view, counted under
// the memory total with the shared one it replaces for the run; at the
// run's end it stops, and the shared one is restarted to read the file.
func TestAStagedBuildFileStartsARunPrivateServer(t *testing.T) {
	f := &fakeServer{}
	root := toolstest.WriteTree(t, map[string]string{"p1/fake.toml": "", "p1/a.fake": "", "p2/fake.toml": "", "p2/a.fake": ""})
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	m := langserver.NewManager(langserver.Options{Start: f.start, Memory: 1 << 30, MemoryTotal: 2 << 30,
		LookPath: func(string) (string, error) { return "/fake", nil }})
	defer m.Close()
	servers := slices.Clone(fakeServers)
	servers[0].BuildFiles = []string{"fake.toml"}
	s := langserver.NewSession(m, ws, servers)
	defer s.Close()
	if r := edit(t, s, ws, "p1/a.fake", "one\n"); !strings.Contains(r.Text(), "no new errors") {
		t.Fatalf("the edit: %s", r.Text())
	}
	if _, err := ws.Stage("p1/fake.toml", "changed = true\n"); err != nil {
		t.Fatal(err)
	}
	r := s.AfterBuildFileEdit(context.Background(), filepath.Join(root, "p1", "fake.toml"))
	if !strings.Contains(r.Text(), "fake restarted for this run on a view holding your staged p1/fake.toml") || !strings.Contains(r.Text(), "no new errors (1 file(s) checked)") {
		t.Errorf("the build file's report: %s", r.Text())
	}
	if n := f.private.Load(); n != 1 {
		t.Errorf("%d servers started on the staged view", n)
	}
	if r := edit(t, s, ws, "p1/a.fake", "BROKEN\n"); !strings.Contains(r.Text(), "1 new error(s)") {
		t.Errorf("the next edit, on the run's own server: %s", r.Text())
	}

	// The shared server (idle) and the run's own fill the total: p2's
	// start stops the idle shared one.
	if r := oneRun(t, m, ws, servers, "p2/a.fake"); !strings.Contains(r.Text(), "no new errors") {
		t.Errorf("p2: %s", r.Text())
	}
	s2 := langserver.NewSession(m, ws, servers)
	defer s2.Close()
	s2.AfterEdit(context.Background(), filepath.Join(root, "p2", "a.fake"), "")
	s3 := langserver.NewSession(m, ws, servers)
	defer s3.Close()
	if r := edit(t, s3, ws, "p1/a.fake", "two\n"); !strings.Contains(r.Text(), "is taken by 2 servers in use") {
		t.Errorf("a third server went past the total: %s", r.Text())
	}

	s.Close()
	for _, st := range m.Status() {
		if filepath.Base(st.Root) == "p1" && strings.HasPrefix(st.State, "running") {
			t.Errorf("p1's shared server was not restarted after the run: %+v", st)
		}
	}
	if _, err := ws.StagedView(context.Background(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "in none of the workspace's roots") {
		t.Errorf("a view of a folder outside the workspace: %v", err)
	}
}

// TestARestartWaitsForTheRunsUsingTheServer: a run that staged a build
// file restarts the shared server at its end, but another run still using
// it keeps it until it is done; the next run gets a new one.
func TestARestartWaitsForTheRunsUsingTheServer(t *testing.T) {
	f := &fakeServer{}
	root := toolstest.WriteTree(t, map[string]string{"fake.toml": "", "a.fake": "", "b.fake": ""})
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	m := langserver.NewManager(langserver.Options{Start: f.start, LookPath: func(string) (string, error) { return "/fake", nil }})
	defer m.Close()
	servers := slices.Clone(fakeServers)
	servers[0].BuildFiles = []string{"fake.toml"}

	other := langserver.NewSession(m, ws, servers)
	defer other.Close()
	if r := edit(t, other, ws, "a.fake", "one\n"); !strings.Contains(r.Text(), "no new errors") {
		t.Fatalf("the other run's edit: %s", r.Text())
	}
	builder := langserver.NewSession(m, ws, servers)
	if r := edit(t, builder, ws, "b.fake", "one\n"); !strings.Contains(r.Text(), "no new errors") {
		t.Fatalf("the building run's edit: %s", r.Text())
	}
	if _, err := ws.Stage("fake.toml", "changed = true\n"); err != nil {
		t.Fatal(err)
	}
	builder.AfterBuildFileEdit(context.Background(), filepath.Join(root, "fake.toml"))
	builder.Close()
	if st := m.Status(); len(st) != 1 || !strings.Contains(st[0].State, "replaced: it ends with the runs using it") {
		t.Errorf("status while the other run uses the replaced server: %+v", st)
	}

	if r := edit(t, other, ws, "a.fake", "one\nBROKEN\n"); !strings.Contains(r.Text(), "1 new error(s)") {
		t.Errorf("the other run, after the building run ended: %s", r.Text())
	}
	started := f.starts.Load()
	other.Close()
	if r := oneRun(t, m, ws, servers, "b.fake"); !strings.Contains(r.Text(), "no new errors") {
		t.Errorf("the next run: %s", r.Text())
	}
	if f.starts.Load() != started+1 {
		t.Errorf("the next run did not get a server started anew (%d starts, %d before)", f.starts.Load(), started)
	}
	if n := m.Running(); n != 1 {
		t.Errorf("%d servers run; the old one should have ended with its last user", n)
	}
}

// fakeManager is a Manager of f's servers over a workspace of files, with
// opts (Start and LookPath set); both closed when t ends.
func fakeManager(t *testing.T, f *fakeServer, files map[string]string, opts langserver.Options) (*tools.Workspace, *langserver.Manager) {
	t.Helper()
	ws, err := tools.NewWorkspace(toolstest.WriteTree(t, files), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	opts.Start = f.start
	if opts.LookPath == nil {
		opts.LookPath = func(string) (string, error) { return "/fake", nil }
	}
	m := langserver.NewManager(opts)
	t.Cleanup(m.Close)
	return ws, m
}

// TestStatusKeepsWhyAServerDidNotStart: a server that is not installed
// stays "unavailable" with its install command once a run tried it.
func TestStatusKeepsWhyAServerDidNotStart(t *testing.T) {
	ws, m := fakeManager(t, &fakeServer{pull: true}, map[string]string{"fake.toml": "", "a.fake": ""},
		langserver.Options{LookPath: func(string) (string, error) { return "", os.ErrNotExist }})
	servers := slices.Clone(fakeServers)
	servers[0].Install = "apt-get install fake"
	oneRun(t, m, ws, servers, "a.fake")
	if st := m.Status(); len(st) != 1 || st[0].State != "unavailable: fake is not installed (not on PATH); install it with: apt-get install fake" {
		t.Errorf("status once a run tried it: %+v", st)
	}
}

// TestTwoStartsAtOnceStayUnderTheMemoryTotal: with room for one server,
// two runs starting servers of two projects at once get one between them;
// the other is told the bound (a start under way counts).
func TestTwoStartsAtOnceStayUnderTheMemoryTotal(t *testing.T) {
	gate := make(chan struct{})
	f := &fakeServer{pull: true, initGate: gate}
	ws, m := fakeManager(t, f, map[string]string{"p1/fake.toml": "", "p1/a.fake": "", "p2/fake.toml": "", "p2/a.fake": ""},
		langserver.Options{Memory: 1 << 30, MemoryTotal: 1 << 30})
	root := ws.Root()
	reports := make(chan string, 2)
	for _, p := range []string{"p1", "p2"} {
		go func() {
			s := langserver.NewSession(m, ws, fakeServers)
			defer s.Close()
			reports <- s.AfterEdit(context.Background(), filepath.Join(root, p, "a.fake"), "").Text()
		}()
	}
	// One start waits in initialize; the other was refused or waits too.
	first := ""
	select {
	case first = <-reports:
	case <-time.After(time.Second):
	}
	close(gate)
	second := <-reports
	if first == "" {
		first = <-reports
	}
	refused := 0
	for _, r := range []string{first, second} {
		if strings.Contains(r, "memory bound (1024 MiB, 1024 MiB each) is taken by 1 servers in use") {
			refused++
		}
	}
	if refused != 1 || f.starts.Load() != 1 {
		t.Errorf("%d starts, %d refused:\n%s\n%s", f.starts.Load(), refused, first, second)
	}
}

// TestAChangedConfigurationStartsANewServer: a server's configuration is
// compared exactly (not as printed: ["-x y"] and ["-x", "y"] print alike).
func TestAChangedConfigurationStartsANewServer(t *testing.T) {
	f := &fakeServer{pull: true}
	ws, m := fakeManager(t, f, map[string]string{"fake.toml": "", "a.fake": ""}, langserver.Options{})
	one, two := slices.Clone(fakeServers), slices.Clone(fakeServers)
	one[0].Args, two[0].Args = []string{"-x y"}, []string{"-x", "y"}
	oneRun(t, m, ws, one, "a.fake")
	oneRun(t, m, ws, two, "a.fake")
	if n := f.starts.Load(); n != 2 {
		t.Errorf("%d starts for two configurations", n)
	}
}
