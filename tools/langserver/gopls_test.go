package langserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestGoplsSignatureChangeNamesBrokenCallers(t *testing.T) {
	s, ws, root := goplsSession(t, nil)
	defer s.Close()

	abs := filepath.Join(root, "a", "a.go")
	before := langservertest.GoModule["a/a.go"]
	if _, err := ws.Stage("a/a.go", strings.Replace(before, "x, y int", "x, y, z int", 1)); err != nil {
		t.Fatal(err)
	}
	r := s.AfterEdit(context.Background(), abs, before)
	text := r.Text()
	t.Log(text)
	for _, want := range []string{"b/b.go:6:", "c/c.go:6:", "2 new error(s) in 2 file(s)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report misses %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "before the run\"") || strings.Contains(text, "old.go") {
		t.Errorf("an error from before the run was reported:\n%s", text)
	}
	if data, _ := os.ReadFile(abs); string(data) != before {
		t.Fatalf("disk changed: %q", data)
	}

	// The model fixes the callers: no new errors.
	for _, f := range []string{"b/b.go", "c/c.go"} {
		fixed := strings.Replace(langservertest.GoModule[f], "a.Add(1, 1)", "a.Add(1, 1, 0)", 1)
		fixed = strings.Replace(fixed, "a.Add(3, 4)", "a.Add(3, 4, 0)", 1)
		if _, err := ws.Stage(f, fixed); err != nil {
			t.Fatal(err)
		}
		r = s.AfterEdit(context.Background(), filepath.Join(root, f), langservertest.GoModule[f])
	}
	if len(r.New) != 0 || r.Checked < 3 {
		t.Fatalf("after the fixes: %s", r.Text())
	}
	end := s.Check(context.Background())
	if len(end.New) != 0 || !strings.Contains(end.Text(), "no new errors") {
		t.Fatalf("the run-end check: %s", end.Text())
	}
	t.Log(end.Text())
}

// call runs one of the session's tools by name.
func call(t *testing.T, s *langserver.Session, name, args string) tools.Result {
	t.Helper()
	for _, tl := range s.Tools() {
		if tl.Name() == name {
			res, err := tl.Execute(context.Background(), json.RawMessage(args))
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
	}
	t.Fatalf("no tool %s", name)
	return tools.Result{}
}

func TestGoplsToolsByName(t *testing.T) {
	s, ws, root := goplsSession(t, nil)
	defer s.Close()

	def := call(t, s, "definition", `{"symbol":"Add","path":"b/b.go"}`)
	if def.IsError || !strings.Contains(def.Text, "a/a.go:4: func Add(x, y int) int") {
		t.Errorf("definition: %+v", def)
	}
	refs := call(t, s, "references", `{"symbol":"Add"}`)
	if refs.IsError || !strings.Contains(refs.Text, "3 reference(s) to Add in 3 file(s)") || !strings.Contains(refs.Text, "c/c.go\n  6: return a.Add(3, 4)") {
		t.Errorf("references: %+v", refs)
	}
	syms := call(t, s, "symbols", `{"path":"a/a.go"}`)
	if syms.IsError || !strings.Contains(syms.Text, "function Add (line 4)") {
		t.Errorf("symbols: %+v", syms)
	}
	missing := call(t, s, "definition", `{"symbol":"Nope","path":"b/b.go"}`)
	if !missing.IsError || !strings.Contains(missing.Text, "Nope does not appear") {
		t.Errorf("an unknown name: %+v", missing)
	}

	ren := call(t, s, "rename", `{"symbol":"Add","path":"a/a.go","new_name":"Sum"}`)
	t.Log(ren.Text)
	if ren.IsError || !strings.Contains(ren.Text, "in 3 file(s)") || !strings.Contains(ren.Text, "no new errors") {
		t.Fatalf("rename: %+v", ren)
	}
	for _, f := range []string{"a/a.go", "b/b.go", "c/c.go"} {
		got, _ := ws.Read(f)
		if !strings.Contains(got.Text, "Sum(") || strings.Contains(got.Text, "Add(") {
			t.Errorf("%s staged as %q", f, got.Text)
		}
		if disk, _ := os.ReadFile(filepath.Join(root, f)); string(disk) != langservertest.GoModule[f] {
			t.Errorf("%s written to disk", f)
		}
	}
}

// TestAStagedGoModIsSaidAndRestartsTheServer: servers read build files
// from disk; where gopls cannot be started again on the run's staged view
// (a plain process here; agentrun's TestAStagedGoModIsSeenByTheRun is the
// sandbox's), the model is told its go.mod change is not seen yet, and
// gopls is restarted after the run (to read it once applied).
func TestAStagedGoModIsSaidAndRestartsTheServer(t *testing.T) {
	root := toolstest.WriteTree(t, langservertest.GoModule)
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	m := langservertest.Gopls(t)
	s := langserver.NewSession(m, ws, langserver.WithOverrides(langserver.KnownServers(), nil))
	edit := s.CheckingEdits(tools.NewEditFile(ws))
	if res, err := edit.Execute(context.Background(), json.RawMessage(`{"path":"a/a.go","old_string":"// Add adds.","new_string":"// Add adds x and y."}`)); err != nil || !strings.Contains(res.Text, "no new errors") {
		t.Fatalf("%v %+v", err, res)
	}
	res, err := edit.Execute(context.Background(), json.RawMessage(`{"path":"go.mod","old_string":"go 1.22","new_string":"go 1.23"}`))
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if !strings.Contains(res.Text, "gopls reads go.mod from disk and could not be restarted on your staged files (starting gopls: a plain process reads the workspace, not the run's staged view): its diagnostics do not reflect this change until the user applies it.") {
		t.Errorf("the model is not told: %s", res.Text)
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "go.mod")); string(disk) != langservertest.GoModule["go.mod"] {
		t.Errorf("go.mod written")
	}
	if st := m.Status(); len(st) != 1 || !strings.HasPrefix(st[0].State, "running") {
		t.Fatalf("status: %+v", st)
	}
	s.Close()
	if st := m.Status(); len(st) != 0 {
		t.Errorf("gopls not restarted after the run: %+v", st)
	}
}

// goplsSession is a session with gopls on langservertest.GoModule, written
// to a workspace read through overlay (nil: disk); the workspace is closed
// when t ends, the session by the caller.
func goplsSession(t *testing.T, overlay tools.Overlay) (*langserver.Session, *tools.Workspace, string) {
	t.Helper()
	root := toolstest.WriteTree(t, langservertest.GoModule)
	ws, err := tools.NewWorkspace(root, overlay)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return langserver.NewSession(langservertest.Gopls(t), ws, langserver.WithOverrides(langserver.KnownServers(), nil)), ws, root
}

// mathxModule is a module whose main calls mathx.Add.
var mathxModule = map[string]string{
	"go.mod":         "module example.com/m\n\ngo 1.22\n",
	"mathx/mathx.go": "package mathx\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
	"main.go":        "package main\n\nimport \"example.com/m/mathx\"\n\nfunc main() { println(mathx.Add(1, 2)) }\n",
}

// TestAnUnsavedDependencyIsWhatGoplsReads: the user renamed mathx.Add to
// Plus in an unsaved buffer the run never opened; the run's edit of
// main.go to use mathx.Plus is judged, and Plus found, against that
// buffer, not the disk's Add: the server reads every file as the run's
// view has it.
func TestAnUnsavedDependencyIsWhatGoplsReads(t *testing.T) {
	root := toolstest.WriteTree(t, mathxModule)
	mathx := filepath.Join(root, "mathx", "mathx.go")
	editor := &editorBuffers{text: map[string]string{mathx: strings.Replace(mathxModule["mathx/mathx.go"], "Add", "Plus", 2)}, versions: map[string]int32{mathx: 3}}
	ws, err := tools.NewWorkspace(root, editor)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s := langserver.NewSession(langservertest.Gopls(t), ws, langserver.WithOverrides(langserver.KnownServers(), nil))
	defer s.Close()
	edit := s.CheckingEdits(tools.NewEditFile(ws))
	res, err := edit.Execute(context.Background(), json.RawMessage(`{"path":"main.go","old_string":"mathx.Add(1, 2)","new_string":"mathx.Plus(1, 2)"}`))
	if err != nil || !strings.Contains(res.Text, "no new errors (1 file(s) checked)") {
		t.Errorf("the edit using the buffer's Plus: %v %s", err, res.Text)
	}
	var definition tools.Tool
	for _, tl := range s.Tools() {
		if tl.Name() == "definition" {
			definition = tl
		}
	}
	def, err := definition.Execute(context.Background(), json.RawMessage(`{"symbol":"Plus","path":"main.go"}`))
	if err != nil || !strings.Contains(def.Text, "mathx/mathx.go:4: func Plus(a, b int) int") {
		t.Errorf("definition of Plus: %v %s", err, def.Text)
	}
}

// TestSymbolsAreTheWorkspacesUnlessAsked: a query answers the workspace's
// declarations, by the workspace's names; the standard library's and
// dependencies' only when asked for, after them.
func TestSymbolsAreTheWorkspacesUnlessAsked(t *testing.T) {
	root := toolstest.WriteTree(t, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"strings\"\n\nfunc main() { println(ToUpperAll(\"x\")) }\n\n// ToUpperAll upper-cases.\nfunc ToUpperAll(s string) string { return strings.ToUpper(s) }\n",
	})
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s := langserver.NewSession(langservertest.Gopls(t), ws, langserver.WithOverrides(langserver.KnownServers(), nil))
	defer s.Close()
	symbols := tool(t, s, "symbols")
	res, err := symbols.Execute(context.Background(), json.RawMessage(`{"query":"ToUpper"}`))
	if err != nil || !strings.Contains(res.Text, "function ToUpperAll (main.go:8)") || strings.Contains(res.Text, " (/") {
		t.Errorf("the workspace's: %v\n%s", err, res.Text)
	}
	res, err = symbols.Execute(context.Background(), json.RawMessage(`{"query":"ToUpper","outside":true}`))
	if err != nil || !strings.Contains(res.Text, "function ToUpperAll (main.go:8)") || !strings.Contains(res.Text, "/strings/") {
		t.Errorf("with outside: %v\n%s", err, res.Text)
	}
	if i, j := strings.Index(res.Text, "main.go"), strings.Index(res.Text, "/strings/"); i > j {
		t.Errorf("the workspace's are not first:\n%s", res.Text)
	}
}
