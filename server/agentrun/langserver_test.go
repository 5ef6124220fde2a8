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
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

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
	r := request(t, langservertest.GoModule, p)
	r.LSP = langservertest.Gopls(t)
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
	if !strings.Contains(out.Check, "no new errors") || !strings.HasSuffix(out.Answer, out.Appended) || !strings.HasPrefix(out.Appended, out.Check) {
		t.Fatalf("the reviewer is not told: check %q, answer %q", out.Check, out.Answer)
	}
	if len(out.Proposal.Changes) != 3 || len(reqs) != 3 {
		t.Errorf("%d changes after %d model calls", len(out.Proposal.Changes), len(reqs))
	}
	root := r.View.Root()
	for f, text := range langservertest.GoModule {
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
	r := request(t, langservertest.GoModule, p)
	r.LSP = langservertest.Gopls(t)
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
	r := request(t, langservertest.GoModule, p)
	r.LSP = langservertest.Gopls(t)
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
	r := request(t, langservertest.GoModule, p)
	r.LSP = langservertest.Gopls(t)
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
	for f, text := range langservertest.GoModule {
		if disk, _ := os.ReadFile(filepath.Join(r.View.Root(), f)); string(disk) != text {
			t.Errorf("%s changed on disk", f)
		}
	}
}

// allowAll approves every question, counting them.
type allowAll struct{ asked int }

func (a *allowAll) Approve(context.Context, tools.ApprovalRequest) (tools.Decision, error) {
	a.asked++
	return tools.AllowOnce, nil
}

// TestGoplsInTheSandbox: the product's wiring, sandbox.Start, runs gopls
// for a run (asked first below level full); the edit's result names the
// broken callers as with a plain process.
func TestGoplsInTheSandbox(t *testing.T) {
	gopls := toolstest.LanguageServer(t, "gopls")
	t.Setenv("PATH", filepath.Dir(gopls)+string(os.PathListSeparator)+os.Getenv("PATH"))
	servers := agentrun.NewLanguageServers(os.Getenv)
	defer servers.Close()
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", editArgs("a/a.go", "func Add(x, y int) int { return x + y }", "func Add(x, y, z int) int { return x + y + z }"))}},
		llmtest.Turn{Text: "changed"},
		llmtest.Turn{Text: "the callers are left to you"}) // after the run-end check's note
	r := request(t, langservertest.GoModule, p)
	r.LSP = servers
	approver := &allowAll{}
	r.Approver = approver
	out, err := agentrun.Do(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Check, "2 new error(s) in 2 file(s)") {
		t.Errorf("the reviewer's check: %q", out.Check)
	}
	got := toolResult(p.Requests(), 0)
	if !strings.Contains(got, "b/b.go:6:") || !strings.Contains(got, "c/c.go:6:") {
		t.Fatalf("the edit's result (sandbox at level %s):\n%s\n%+v", tools.SandboxLevel(), got, servers.Status())
	}
	if needs := tools.SandboxLevel().ServerNeedsApproval(); needs != (approver.asked == 1) {
		t.Errorf("asked %d times at level %s", approver.asked, tools.SandboxLevel())
	}
}
