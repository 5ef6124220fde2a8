package agentrun_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
)

// goModule: a.Add is called from two other packages; c has an error from
// before the run, which is never the agent's.
var goModule = map[string]string{
	"go.mod":   "module example.com/m\n\ngo 1.22\n",
	"a/a.go":   "package a\n\n// Add adds.\nfunc Add(x, y int) int { return x + y }\n",
	"b/b.go":   "package b\n\nimport \"example.com/m/a\"\n\nfunc Two() int {\n\treturn a.Add(1, 1)\n}\n",
	"c/c.go":   "package c\n\nimport \"example.com/m/a\"\n\nfunc Seven() int {\n\treturn a.Add(3, 4)\n}\n",
	"c/old.go": "package c\n\nvar broken int = \"before the run\"\n",
}

// goplsServers runs the real gopls as a plain process (tests only: the
// product runs it in the sandbox).
func goplsServers(t *testing.T) *langserver.Manager { return goplsServersB(t) }

func goplsServersB(t testing.TB) *langserver.Manager {
	gopls := langservertest.LookPath(t, "gopls")
	m := langserver.NewManager(langserver.Options{
		Start:    langservertest.Exec(langservertest.GoEnv(t)...),
		LookPath: langservertest.Paths(map[string]string{"gopls": gopls}),
	})
	t.Cleanup(m.Close)
	return m
}

func editArgs(path, old, new string) string {
	b, _ := json.Marshal(map[string]string{"path": path, "old_string": old, "new_string": new})
	return string(b)
}

// toolResult is the result of the n-th tool call (0-based) the model saw.
func toolResult(reqs []llm.Request, n int) string {
	seen := 0
	last := reqs[len(reqs)-1]
	for _, m := range last.Messages {
		for _, r := range m.ToolResults {
			if seen == n {
				return r.Content
			}
			seen++
		}
	}
	return ""
}

// TestSignatureChangeBreaksCallersThenTheModelFixesThem is the Go run end to
// end: the model changes a signature; the edit's result names the callers
// it broke in two other files (path:line), disk untouched; the model fixes
// them; the run-end check says no new errors, and the answer the reviewer
// sees says so.
func TestSignatureChangeBreaksCallersThenTheModelFixesThem(t *testing.T) {
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", editArgs("a/a.go", "func Add(x, y int) int { return x + y }", "func Add(x, y, z int) int { return x + y + z }"))}},
		llmtest.Turn{Calls: []llmtest.Call{
			call("edit_file", editArgs("b/b.go", "a.Add(1, 1)", "a.Add(1, 1, 0)")),
			call("edit_file", editArgs("c/c.go", "a.Add(3, 4)", "a.Add(3, 4, 0)"))}},
		llmtest.Turn{Text: "Add takes a third operand; its callers pass 0."})
	r := request(t, goModule, p)
	r.LSP = goplsServers(t)
	out, err := agentrun.Do(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	first := toolResult(reqs, 0)
	t.Logf("the edit's result:\n%s", first)
	for _, want := range []string{"Staged: a/a.go edited", "b/b.go:6:", "c/c.go:6:", "not enough arguments in call to a.Add"} {
		if !strings.Contains(first, want) {
			t.Errorf("the edit's result misses %q", want)
		}
	}
	if strings.Contains(first, "old.go") {
		t.Errorf("an error from before the run was given to the model:\n%s", first)
	}
	for _, tool := range []string{"definition", "references", "symbols", "rename"} {
		if !slices.Contains(offered(reqs[0]), tool) {
			t.Errorf("%s not offered: %v", tool, offered(reqs[0]))
		}
	}
	if last := toolResult(reqs, 2); !strings.Contains(last, "no new errors") {
		t.Errorf("after the fixes: %s", last)
	}
	if !strings.Contains(out.Check, "no new errors") || !strings.HasSuffix(out.Answer, out.Check) {
		t.Fatalf("the reviewer is not told: check %q, answer %q", out.Check, out.Answer)
	}
	if len(out.Proposal.Changes) != 3 || len(reqs) != 3 {
		t.Errorf("%d changes after %d model calls", len(out.Proposal.Changes), len(reqs))
	}
	root := r.View.Root()
	for f, text := range goModule {
		if disk, _ := os.ReadFile(filepath.Join(root, f)); string(disk) != text {
			t.Errorf("%s changed on disk", f)
		}
	}
}

// TestTheRunEndCheckGivesTheModelATurn: a run that ends with new errors is
// told them before the user sees anything; it fixes them, and the reviewer
// sees the check of the fixed changes.
func TestTheRunEndCheckGivesTheModelATurn(t *testing.T) {
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"b/b.go","content":"package b\n\nfunc Two() int { return undefinedThing }\n"}`)}},
		llmtest.Turn{Text: "done"},
		llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"b/b.go","content":"package b\n\nfunc Two() int { return 2 }\n"}`)}},
		llmtest.Turn{Text: "fixed: Two returns 2"})
	r := request(t, goModule, p)
	r.LSP = goplsServers(t)
	out, err := agentrun.Do(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls", len(reqs))
	}
	told := reqs[2].Messages[len(reqs[2].Messages)-1].Text
	if !strings.Contains(told, "b/b.go:3:") || !strings.Contains(told, "undefinedThing") {
		t.Errorf("the model was told: %q", told)
	}
	if !strings.HasPrefix(out.Answer, "fixed: Two returns 2") || !strings.Contains(out.Check, "no new errors") {
		t.Errorf("answer %q, check %q", out.Answer, out.Check)
	}
}

// TestAskModeGetsTheReadToolsNeverRename: read-only runs navigate by name
// but cannot rename.
func TestAskModeGetsTheReadToolsNeverRename(t *testing.T) {
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{call("references", `{"symbol":"Add"}`)}},
		llmtest.Turn{Text: "Add is used in b and c."})
	r := request(t, goModule, p)
	r.LSP = goplsServers(t)
	r.Mode = agentrun.ModeAsk
	out, err := agentrun.Do(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	names := offered(p.Requests()[0])
	if slices.Contains(names, "rename") || !slices.Contains(names, "references") || !slices.Contains(names, "definition") {
		t.Errorf("ask mode offered %v", names)
	}
	if got := toolResult(p.Requests(), 0); !strings.Contains(got, "3 reference(s) to Add in 3 file(s)") {
		t.Errorf("references: %q", got)
	}
	if out.Check != "" {
		t.Errorf("ask mode was checked: %q", out.Check)
	}
}

// TestRenameIsStagedAndReviewed: the model's rename becomes staged changes
// in the proposal the user reviews, checked; disk is untouched.
func TestRenameIsStagedAndReviewed(t *testing.T) {
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{call("rename", `{"symbol":"Add","path":"b/b.go","new_name":"Sum"}`)}},
		llmtest.Turn{Text: "Renamed Add to Sum."})
	r := request(t, goModule, p)
	r.LSP = goplsServers(t)
	out, err := agentrun.Do(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolResult(p.Requests(), 0); !strings.Contains(got, "Staged: Add renamed to Sum in 3 file(s): a/a.go, b/b.go, c/c.go.") {
		t.Errorf("rename's result: %q", got)
	}
	diff := out.Proposal.Diff()
	for _, want := range []string{"-func Add(x, y int) int", "+func Sum(x, y int) int", "+\treturn a.Sum(1, 1)", "+\treturn a.Sum(3, 4)"} {
		if !strings.Contains(diff, want) {
			t.Errorf("the proposal lacks %q:\n%s", want, diff)
		}
	}
	if !strings.Contains(out.Check, "no new errors") {
		t.Errorf("check: %q", out.Check)
	}
	for f, text := range goModule {
		if disk, _ := os.ReadFile(filepath.Join(r.View.Root(), f)); string(disk) != text {
			t.Errorf("%s changed on disk", f)
		}
	}
}
