package langserver_test

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// plainFake serves .fake files, the workspace being the project.
var plainFake = langserver.Servers{{Name: "fake", Command: "fake", Languages: []string{"fake"}, Extensions: map[string]string{".fake": "fake"}}}

// fakeSession is a session over a workspace of .fake files served by f.
func fakeSession(t *testing.T, f *fakeServer, files map[string]string) (*langserver.Session, *tools.Workspace, *langserver.Manager) {
	t.Helper()
	root := toolstest.WriteTree(t, files)
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	m := langserver.NewManager(langserver.Options{Start: f.start, Timeout: cmp.Or(f.timeout, 2*time.Second), Logger: langservertest.Logger(t),
		LookPath: func(string) (string, error) { return "/fake", nil }})
	t.Cleanup(m.Close)
	s := langserver.NewSession(m, ws, plainFake)
	t.Cleanup(s.Close)
	return s, ws, m
}

// edit stages newText for rel and returns what the session says of it.
func edit(t *testing.T, s *langserver.Session, ws *tools.Workspace, rel, newText string) langserver.Report {
	t.Helper()
	abs, _, err := ws.Resolve(rel)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := ws.Read(rel)
	if _, err := ws.Stage(rel, newText); err != nil {
		t.Fatal(err)
	}
	return s.AfterEdit(context.Background(), abs, before.Text)
}

func TestNewErrorsAgainstTheBaseline(t *testing.T) {
	s, ws, _ := fakeSession(t, &fakeServer{}, map[string]string{"a.fake": "ok\nBROKEN before\n"})
	r := edit(t, s, ws, "a.fake", "ok\nBROKEN before\nBROKEN now\n")
	if len(r.New) != 1 || r.New[0].Path != "a.fake" || r.New[0].Range.Start.Line != 2 {
		t.Fatalf("want the one new error on line 3: %s", r.Text())
	}
	if !strings.Contains(r.Text(), "a.fake:3:1: BROKEN here [fake]") {
		t.Errorf("the report: %s", r.Text())
	}
	r = edit(t, s, ws, "a.fake", "ok\nBROKEN before\n")
	if len(r.New) != 0 || !strings.Contains(r.Text(), "no new errors") {
		t.Fatalf("fixed: %s", r.Text())
	}
}

// TestStaleDiagnosticsAreNeverReported: a push of the version before the
// one sent, or without a version, is not this version's: "not known".
func TestStaleDiagnosticsAreNeverReported(t *testing.T) {
	s, ws, _ := fakeSession(t, &fakeServer{staleOnly: true}, map[string]string{"a.fake": "ok\n"})
	r := edit(t, s, ws, "a.fake", "changed\n")
	text := r.Text()
	if strings.Contains(text, "stale") || len(r.New) != 0 || !strings.Contains(text, "not known for a.fake") {
		t.Fatalf("a stale diagnostic was taken: %s", text)
	}
}

func TestServerThatNeverAnswersInitialize(t *testing.T) {
	f := &fakeServer{hangInit: true}
	s, ws, m := fakeSession(t, f, map[string]string{"a.fake": "ok\n"})
	r := edit(t, s, ws, "a.fake", "BROKEN\n")
	if !strings.Contains(r.Text(), "fake: initialize: no answer within 2s") {
		t.Fatalf("the model is not told: %q", r.Text())
	}
	if got, _ := ws.Read("a.fake"); got.Text != "BROKEN\n" {
		t.Errorf("the edit was lost: %q", got.Text)
	}
	if n := m.Running(); n != 0 {
		t.Errorf("%d servers still running", n)
	}
	// Said once: the next edit does not repeat it, nor wait again.
	r = edit(t, s, ws, "a.fake", "BROKEN again\n")
	if r.Text() != "" || f.starts.Load() != 1 {
		t.Errorf("second edit: %q after %d starts", r.Text(), f.starts.Load())
	}
}

func TestServerCrashingOnEveryRequestIsUnavailableAfterBackoff(t *testing.T) {
	f := &fakeServer{crashOnRequest: true, pull: true}
	s, ws, m := fakeSession(t, f, map[string]string{"a.fake": "ok\n"})
	r := edit(t, s, ws, "a.fake", "BROKEN\n")
	if !strings.Contains(r.Text(), "the server ended") {
		t.Fatalf("the model is not told of the crash: %q", r.Text())
	}
	// A new run: the crashed server is started again after its backoff,
	// crashes again, and after three crashes is unavailable for good.
	for range 3 {
		servers := langserver.Servers{{Name: "fake", Command: "fake", Extensions: map[string]string{".fake": "fake"}}}
		s2 := langserver.NewSession(m, ws, servers)
		time.Sleep(0) // the backoff is waited by the Manager's clock, not here
		s2.AfterEdit(context.Background(), filepath.Join(ws.Root(), "a.fake"), "ok\n")
		s2.Close()
	}
	st := m.Status()
	if len(st) != 1 || !strings.HasPrefix(st[0].State, "unavailable: ") {
		t.Fatalf("status: %+v", st)
	}
	if got, _ := ws.Read("a.fake"); got.Text != "BROKEN\n" {
		t.Errorf("the edit was lost: %q", got.Text)
	}
}

func TestFloodOfDiagnosticsIsBounded(t *testing.T) {
	s, ws, _ := fakeSession(t, &fakeServer{flood: 2000, timeout: 20 * time.Second}, map[string]string{"a.fake": "ok\n"})
	r := edit(t, s, ws, "a.fake", "BROKEN\n")
	text := r.Text()
	if strings.Count(text, "\n  a.fake:") > 20 || !strings.Contains(text, "… and ") {
		t.Fatalf("the report is not capped: %d lines:\n%s", strings.Count(text, "\n"), text)
	}
	if strings.Contains(text, ".other") {
		t.Errorf("diagnostics of files never opened were reported")
	}
}

func TestWorkspaceEditOutsideTheRootsIsRefused(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "victim.fake")
	if err := os.WriteFile(outside, []byte("safe\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, ws, _ := fakeSession(t, &fakeServer{renameTo: "file://" + outside}, map[string]string{"a.fake": "Thing\n"})
	var rename tools.Tool
	for _, tl := range s.Tools() {
		if tl.Name() == "rename" {
			rename = tl
		}
	}
	res, err := rename.Execute(context.Background(), []byte(`{"symbol":"Thing","path":"a.fake","new_name":"Other"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Text, "outside the workspace") || !strings.Contains(res.Text, "nothing was staged") {
		t.Fatalf("rename: %+v", res)
	}
	if len(ws.Changes()) != 0 {
		t.Errorf("staged: %+v", ws.Changes())
	}
	if data, _ := os.ReadFile(outside); string(data) != "safe\n" {
		t.Errorf("the file outside changed: %q", data)
	}
}
