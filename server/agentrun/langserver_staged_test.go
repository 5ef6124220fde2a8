package agentrun_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// sandboxedServer is the product's Manager (servers in the sandbox) with
// the test's server name on PATH.
func sandboxedServer(t testing.TB, name string) *langserver.Manager {
	t.Helper()
	bin := toolstest.LanguageServer(t, name)
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	servers := agentrun.NewLanguageServers(os.Getenv)
	t.Cleanup(servers.Close)
	return servers
}

// TestAStagedGoModIsSeenByTheRun: the model stages a go.mod whose go
// version is below what a file it edited uses: gopls, started again for
// the run on its staged view through the sandbox, says so, where the
// shared one, reading the workspace's go.mod, saw no error. Disk is
// untouched, and the run-end check judges on the same view.
func TestAStagedGoModIsSeenByTheRun(t *testing.T) {
	servers := sandboxedServer(t, "gopls")
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": "package a\n\n// Sum adds 0 to 2.\nfunc Sum() int {\n\ts := 0\n\tfor i := range 3 {\n\t\ts += i\n\t}\n\treturn s\n}\n",
	}
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{
			call("edit_file", editArgs("a/a.go", "// Sum adds 0 to 2.", "// Sum adds 0, 1 and 2."))}},
		llmtest.Turn{Calls: []llmtest.Call{
			call("edit_file", editArgs("go.mod", "go 1.22", "go 1.21"))}},
		llmtest.Turn{Text: "go 1.21."},
		llmtest.Turn{Text: "left as is."})
	r := request(t, files, p)
	r.LSP = servers
	r.Approver = &allowAll{}
	out, err := agentrun.Do(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if got := toolResult(reqs, 0); !strings.Contains(got, "no new errors") {
		t.Errorf("the edit under the workspace's go.mod:\n%s", got)
	}
	got := toolResult(reqs, 1)
	t.Logf("the go.mod's result:\n%s", got)
	for _, want := range []string{"gopls restarted for this run on a view holding your staged go.mod", "a/a.go:6:", "requires go1.22 or later"} {
		if !strings.Contains(got, want) {
			t.Errorf("the go.mod's result misses %q (sandbox at level %s):\n%s", want, tools.SandboxLevel(), got)
		}
	}
	if !strings.Contains(out.Check, "a/a.go:6:") {
		t.Errorf("the run-end check: %q", out.Check)
	}
	if disk, _ := os.ReadFile(filepath.Join(r.View.Root(), "go.mod")); string(disk) != files["go.mod"] {
		t.Errorf("go.mod changed on disk: %q", disk)
	}
	if n := servers.Running(); n != 0 {
		t.Errorf("after the run, %d shared servers run (the shared one is restarted to read go.mod, the run's own stopped)", n)
	}
}

// TestAGoModStagedFirstIsSeenByTheRun: the go.mod is staged before the
// run used gopls; its first edit of a Go file starts gopls on the staged
// view, and the error the go.mod makes there is new: what was broken
// before the run is asked of the shared gopls, on the workspace.
func TestAGoModStagedFirstIsSeenByTheRun(t *testing.T) {
	servers := sandboxedServer(t, "gopls")
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": "package a\n\n// Sum adds 0 to 2.\nfunc Sum() int {\n\ts := 0\n\tfor i := range 3 {\n\t\ts += i\n\t}\n\treturn s\n}\n",
	}
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{
			call("edit_file", editArgs("go.mod", "go 1.22", "go 1.21"))}},
		llmtest.Turn{Calls: []llmtest.Call{
			call("edit_file", editArgs("a/a.go", "// Sum adds 0 to 2.", "// Sum adds 0, 1 and 2."))}},
		llmtest.Turn{Text: "go 1.21."},
		llmtest.Turn{Text: "left as is."})
	r := request(t, files, p)
	r.LSP = servers
	r.Approver = &allowAll{}
	out, err := agentrun.Do(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if got := toolResult(reqs, 0); strings.Contains(got, "Language server") {
		t.Errorf("the go.mod's result, before any Go file was judged:\n%s", got)
	}
	got := toolResult(reqs, 1)
	t.Logf("the edit's result:\n%s", got)
	for _, want := range []string{"a/a.go:6:", "requires go1.22 or later"} {
		if !strings.Contains(got, want) {
			t.Errorf("the edit's result misses %q (sandbox at level %s):\n%s", want, tools.SandboxLevel(), got)
		}
	}
	if !strings.Contains(out.Check, "a/a.go:6:") {
		t.Errorf("the run-end check: %q", out.Check)
	}
	if disk, _ := os.ReadFile(filepath.Join(r.View.Root(), "go.mod")); string(disk) != files["go.mod"] {
		t.Errorf("go.mod changed on disk: %q", disk)
	}
	if n := servers.Running(); n != 0 {
		t.Errorf("after the run, %d shared servers run (the shared one is restarted to read go.mod, the run's own stopped)", n)
	}
}

// TestClangdInTheSandbox: a C run through the product's sandbox: the
// model adds a parameter to a function declared in a header; the edit's
// result names the caller in another file that now passes too few
// arguments, and the definition that conflicts. Disk is untouched.
func TestClangdInTheSandbox(t *testing.T) {
	servers := sandboxedServer(t, "clangd")
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", editArgs("mathx.h", "int add(int x, int y);", "int add(int x, int y, int z);"))}},
		llmtest.Turn{Text: "add takes a third operand."},
		llmtest.Turn{Text: "the callers are left to you"}) // after the run-end check's note
	files := map[string]string{
		"compile_commands.json": `[{"directory": "{root}", "file": "mathx.c", "arguments": ["cc", "-std=c11", "-c", "mathx.c"]},` +
			` {"directory": "{root}", "file": "main.c", "arguments": ["cc", "-std=c11", "-c", "main.c"]}]` + "\n",
		"mathx.h": "#ifndef MATHX_H\n#define MATHX_H\n\nint add(int x, int y);\n\n#endif\n",
		"mathx.c": "#include \"mathx.h\"\n\nint add(int x, int y) { return x + y; }\n",
		"main.c":  "#include \"mathx.h\"\n\nint two(void) { return add(1, 1); }\n",
	}
	r := requestIn(t, langservertest.WriteProject(t, files), p)
	r.LSP = servers
	r.Approver = &allowAll{}
	out, err := agentrun.Do(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	got := toolResult(p.Requests(), 0)
	t.Logf("the edit's result:\n%s", got)
	for _, want := range []string{"main.c:3:", "Too few arguments to function call, expected 3, have 2", "mathx.c:3:"} {
		if !strings.Contains(got, want) {
			t.Errorf("the edit's result misses %q (sandbox at level %s):\n%s", want, tools.SandboxLevel(), got)
		}
	}
	if !strings.Contains(out.Check, "2 new error(s) in 2 file(s)") {
		t.Errorf("the reviewer's check: %q", out.Check)
	}
	if disk, _ := os.ReadFile(filepath.Join(r.View.Root(), "mathx.h")); string(disk) != files["mathx.h"] {
		t.Errorf("mathx.h changed on disk: %q", disk)
	}
	// At level none nothing but its arguments keeps clangd from writing
	// its index into the project.
	entries, _ := os.ReadDir(r.View.Root())
	for _, e := range entries {
		if _, ok := files[e.Name()]; !ok {
			t.Errorf("the workspace gained %s (sandbox at level %s)", e.Name(), tools.SandboxLevel())
		}
	}
}

// TestANewPackageIsSeenByTheRun: after an edit (gopls warm), the model
// writes a file in a folder that is not on disk (a new package) calling
// into the module wrongly: gopls, started again for the run on a view
// holding the folder, names the error. Given the file as an open document
// only, a warm gopls said nothing of it in 3 of 10 runs (10 runs on one
// sandboxed gopls; 0 of 10 so). Disk holds no such folder.
func TestANewPackageIsSeenByTheRun(t *testing.T) {
	servers := sandboxedServer(t, "gopls")
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", editArgs("a/a.go", "// Add adds.", "// Add adds x and y."))}},
		llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"n/n.go","content":"package n\n\nimport \"example.com/m/a\"\n\n// Three is three.\nfunc Three() int { return a.Add(3) }\n"}`)}},
		llmtest.Turn{Text: "n.Three added."},
		llmtest.Turn{Text: "left to you"}) // after the run-end check's note
	r := request(t, langservertest.GoModule, p)
	r.LSP = servers
	r.Approver = &allowAll{}
	out, err := agentrun.Do(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	got := toolResult(p.Requests(), 1)
	t.Logf("the write's result:\n%s", got)
	for _, want := range []string{"gopls started for this run on a view holding your new folder n", "n/n.go:6:", "not enough arguments in call to a.Add"} {
		if !strings.Contains(got, want) {
			t.Errorf("the write's result misses %q (sandbox at level %s):\n%s", want, tools.SandboxLevel(), got)
		}
	}
	if !strings.Contains(out.Check, "n/n.go:6:") {
		t.Errorf("the run-end check: %q", out.Check)
	}
	if _, err := os.Lstat(filepath.Join(r.View.Root(), "n")); !os.IsNotExist(err) {
		t.Errorf("n is on disk: %v", err)
	}
}

// TestADocumentNamingTheWorkspaceReachesGoplsByteExactInTheSandbox: below
// level full the run's own gopls (started for a staged go.mod) works in
// the commands' copy of the workspace, so its URIs name the copy; a
// document whose text names the workspace's URI still reaches it as it
// is, and the error after that URI on the same line is reported at its
// column in the run's text.
func TestADocumentNamingTheWorkspaceReachesGoplsByteExactInTheSandbox(t *testing.T) {
	servers := sandboxedServer(t, "gopls")
	root := toolstest.WriteTree(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": "package a\n\n// Two is 2.\nfunc Two() int { return 2 }\n",
	})
	line := fmt.Sprintf("var fixture, n = %q, int(%q)", "file://"+root+"/a/a.go", "x")
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", editArgs("go.mod", "go 1.22", "go 1.23"))}},
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", editArgs("a/a.go", "// Two is 2.", line+"\n\n// Two is 2."))}},
		llmtest.Turn{Text: "done"},
		llmtest.Turn{Text: "left as is"})
	r := requestIn(t, root, p)
	r.LSP = servers
	r.Approver = &allowAll{}
	if _, err := agentrun.Do(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	got := toolResult(p.Requests(), 1)
	want := fmt.Sprintf("a/a.go:3:%d:", strings.Index(line, `int("x")`)+len("int(")+1)
	if !strings.Contains(got, want) {
		t.Errorf("want the conversion's error at %s (sandbox at level %s):\n%s", want, tools.SandboxLevel(), got)
	}
}

// TestAGoWorkNamingAFolderOutsideIsNeverCleanInTheSandbox: a go.work uses
// a module beside the workspace, which the sandbox does not show gopls
// (at level full): gopls loads no package, and the model's breaking edit
// must not be called clean; where gopls sees the module (below full), the
// break is named.
func TestAGoWorkNamingAFolderOutsideIsNeverCleanInTheSandbox(t *testing.T) {
	servers := sandboxedServer(t, "gopls")
	top := t.TempDir()
	toolstest.WriteFiles(t, top, map[string]string{
		"outside/go.mod": "module example.com/outside\n\ngo 1.22\n",
		"outside/o/o.go": "package o\n\n// One is 1.\nfunc One() int { return 1 }\n",
		"ws/go.work":     "go 1.22\n\nuse (\n\t.\n\t../outside\n)\n",
		"ws/go.mod":      "module example.com/m\n\ngo 1.22\n",
		"ws/a/a.go":      "package a\n\nfunc Add(x, y int) int { return x + y }\n",
		"ws/b/b.go":      "package b\n\nimport \"example.com/m/a\"\n\nfunc Two() int {\n\treturn a.Add(1, 1)\n}\n",
	})
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", editArgs("a/a.go", "x, y int", "x, y, z int"))}},
		llmtest.Turn{Text: "Add takes z."},
		llmtest.Turn{Text: "left to you"})
	r := requestIn(t, filepath.Join(top, "ws"), p)
	r.LSP = servers
	r.Approver = &allowAll{}
	out, err := agentrun.Do(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	got := toolResult(p.Requests(), 0)
	t.Logf("at level %s, the edit's result:\n%s\nthe check: %s", tools.SandboxLevel(), got, out.Check)
	for _, text := range []string{got, out.Check} {
		if strings.Contains(text, "no new errors") || !strings.Contains(text, "not known") && !strings.Contains(text, "b/b.go:6:") {
			t.Errorf("at level %s, a verdict that is neither the break nor not known:\n%s", tools.SandboxLevel(), text)
		}
	}
}
