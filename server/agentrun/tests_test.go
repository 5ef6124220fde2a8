package agentrun_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools"
)

// testedModule is a module whose b.Two, tested in b, calls a.Add, and
// whose c has a test failing before any run.
var testedModule = map[string]string{
	"go.mod":      "module example.com/m\n\ngo 1.22\n",
	"a/a.go":      "package a\n\n// Add adds.\nfunc Add(x, y int) int { return x + y }\n",
	"b/b.go":      "package b\n\nimport \"example.com/m/a\"\n\n// Two is 2.\nfunc Two() int { return a.Add(1, 1) }\n",
	"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif got := Two(); got != 2 {\n\t\tt.Errorf(\"Two() = %d, want 2\", got)\n\t}\n}\n",
	"c/c.go":      "package c\n\nimport \"example.com/m/a\"\n\n// Three is 3.\nfunc Three() int { return a.Add(1, 2) }\n",
	"c/c_test.go": "package c\n\nimport \"testing\"\n\nfunc TestOld(t *testing.T) { t.Error(\"failing since before\") }\n",
}

// TestTheTestsABreakingChangeTouchesAreRunAndFixed: the model's change of
// a.Add breaks b's test (b imports a); before the reviewer sees it, the
// tests b and c hold are run on the proposal: the model is told b's
// TestTwo broke (with its file) and c's TestOld failed before; it fixes
// the change, and the answer ends with the tests passing and c's old
// failure not blamed. Disk is untouched.
func TestTheTestsABreakingChangeTouchesAreRunAndFixed(t *testing.T) {
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", editArgs("a/a.go", "return x + y", "return x * y"))}},
		llmtest.Turn{Text: "Add multiplies."},
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", editArgs("a/a.go", "return x * y", "return y + x"))}},
		llmtest.Turn{Text: "Add adds again, the other way round."})
	r := request(t, testedModule, p)
	r.Approver = &allowAll{}
	out, err := agentrun.Do(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	note := reqs[2].Messages[len(reqs[2].Messages)-1].Text
	t.Logf("the note:\n%s\nthe answer:\n%s", note, out.Answer)
	for _, want := range []string{"the proposal breaks 1 test(s) that pass without it", "b: TestTwo (b/b_test.go:7)", "Two() = 1, want 2", "c: TestOld"} {
		if !strings.Contains(note, want) {
			t.Errorf("the model is not told %q", want)
		}
	}
	if !strings.HasSuffix(out.Answer, out.Tests) || !strings.HasPrefix(out.Tests, "Tests: 1 test(s) in 2 packages pass with the proposal.") ||
		!strings.Contains(out.Tests, "failed before this run too, and still do (not the agent's): c: TestOld") {
		t.Errorf("the reviewer's verdict: %q", out.Tests)
	}
	if disk, _ := os.ReadFile(filepath.Join(r.View.Root(), "a/a.go")); string(disk) != testedModule["a/a.go"] {
		t.Errorf("a/a.go written: %q", disk)
	}
}

// TestTheProjectsTestsAreAskedBelowFullInTheSandbox: where the sandbox cannot
// hold what tests run, they run only once the user allowed it; denied,
// none runs and the reviewer is told why.
func TestTheProjectsTestsAreAskedBelowFullInTheSandbox(t *testing.T) {
	if !tools.SandboxLevel().ServerNeedsApproval() {
		t.Skip("at level full nothing is asked: AGENT_LSP_SANDBOX=none go test -run InTheSandbox runs this")
	}
	marker := filepath.Join(t.TempDir(), "ran")
	files := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"a/a.go":      "package a\n\n// N is 1.\nconst N = 1\n",
		"a/a_test.go": "package a\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestN(t *testing.T) { os.WriteFile(\"" + marker + "\", nil, 0o600) }\n",
	}
	p := llmtest.NewScripted(llmtest.Turn{Calls: []llmtest.Call{call("edit_file", editArgs("a/a.go", "N = 1", "N = 2"))}}, llmtest.Turn{Text: "N is 2."})
	r := request(t, files, p)
	d := &denyAll{}
	r.Approver = d
	out, err := agentrun.Do(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.asked) != 1 || !strings.HasPrefix(d.asked[0], "go test -json") || out.Tests != "Tests: not run: you did not allow running the project's tests." {
		t.Errorf("asked %q; the verdict %q", d.asked, out.Tests)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a test ran though it was denied")
	}
}
