package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun/agentruntest"
	"github.com/agent-lsp/agent-lsp/tools"
)

// TestAskTellsTheModelAndTheReviewerWhatTheLanguageServerSays: through the
// CLI, an edit's result names the caller it broke, and the printed answer
// ends with the run-end check.
func TestAskTellsTheModelAndTheReviewerWhatTheLanguageServerSays(t *testing.T) {
	agentruntest.WithGopls(t)
	ws := newWorkspace(t, agentruntest.AddModule)
	srv := llmtest.NewOpenAIServer(t, agentruntest.AddThirdOperand()...)
	r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "gpt-test", "OPENAI_BASE_URL": srv.URL + "/v1"},
		"ask", "--workspace", ws, "give Add a third operand")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	bodies := srv.Requests()
	second, _ := json.Marshal(bodies[1]["messages"])
	if !strings.Contains(string(second), "b/b.go:6:") || !strings.Contains(string(second), "not enough arguments") {
		t.Errorf("the edit's result did not name the broken caller: %s", second)
	}
	if !strings.Contains(r.stdout, "Add takes z; Two passes 0.\n\nLanguage server: no new errors") || !strings.Contains(r.stdout, "+++ b/b/b.go") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if disk, _ := os.ReadFile(filepath.Join(ws, "a/a.go")); string(disk) != agentruntest.AddModule["a/a.go"] {
		t.Errorf("a/a.go written: %q", disk)
	}
}

// TestDoctorSaysWhichLanguageServersAreInstalled: a missing one is named
// with its install command; nothing is downloaded.
func TestDoctorSaysWhichLanguageServersAreInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	ws := newWorkspace(t, map[string]string{"go.mod": "module m\n", "pyproject.toml": "[project]\nname = \"p\"\n"})
	r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}, "doctor", "--workspace", ws)
	for _, want := range []string{
		"language server gopls: gopls is not installed (not on PATH); install it with: go install golang.org/x/tools/gopls@latest",
		"language server pyright: pyright-langserver is not installed (not on PATH); install it with: npm install -g pyright",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "clangd") {
		t.Errorf("doctor names a server the workspace does not use:\n%s", r.stdout)
	}
}

// TestAHostileServerIsNeverStartedUnasked: through ask, with the product's
// starter, a configured server that harms on its start does nothing when
// the run reads its file (nothing warms it unasked) nor when the edit's
// check asks and nobody is at the terminal to allow it; at level full,
// where nothing is asked, the sandbox holds it. Seen by effect.
func TestAHostileServerIsNeverStartedUnasked(t *testing.T) {
	h := agentruntest.NewHostileServer(t)
	ws := newWorkspace(t, agentruntest.HostileFiles)
	srv := llmtest.NewOpenAIServer(t, agentruntest.HostileTurns()...)
	r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "gpt-test", "OPENAI_BASE_URL": srv.URL + "/v1", "XDG_CONFIG_HOME": userConfig(t, h.Config)},
		"ask", "--workspace", ws, "change one to two")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if effects := h.Effects(); len(effects) > 0 {
		t.Errorf("at level %s the server ran: %v\n%s", tools.SandboxLevel(), effects, r.stderr)
	}
	if tools.SandboxLevel().ServerNeedsApproval() {
		third, _ := json.Marshal(srv.Requests()[2]["messages"])
		if !strings.Contains(string(third), "did not allow") {
			t.Errorf("the edit's result does not say the server was not allowed: %s", third)
		}
	}
}

// TestAskPrintsTheTestsVerdictAfterTheDiff: through the CLI, the tests the
// change touches run on the proposal in the sandbox; the model is told the
// test it broke and leaves it, and ask prints the verdict, naming the test
// and its file, after the diff. Nothing is written.
func TestAskPrintsTheTestsVerdictAfterTheDiff(t *testing.T) {
	files := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"a/a.go":      "package a\n\n// Add adds.\nfunc Add(x, y int) int { return x + y }\n",
		"b/b.go":      "package b\n\nimport \"example.com/m/a\"\n\n// Two is 2.\nfunc Two() int { return a.Add(1, 1) }\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif got := Two(); got != 2 {\n\t\tt.Errorf(\"Two() = %d, want 2\", got)\n\t}\n}\n",
	}
	ws := newWorkspace(t, files)
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{agentruntest.EditCall("a/a.go", "return x + y", "return x * y")}},
		llmtest.Turn{Text: "Add multiplies."},
		llmtest.Turn{Text: "Two's test is yours to update."})
	r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "gpt-test", "OPENAI_BASE_URL": srv.URL + "/v1"}, "ask", "--workspace", ws, "make Add multiply")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	diffAt, testsAt := strings.Index(r.stdout, "+++ b/a/a.go"), strings.Index(r.stdout, "Tests: the proposal breaks 1 test(s) that pass without it:\n  b: TestTwo (b/b_test.go:7)")
	if diffAt < 0 || testsAt < diffAt || !strings.HasPrefix(r.stdout, "Two's test is yours to update.\n") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	third, _ := json.Marshal(srv.Requests()[2]["messages"])
	if !strings.Contains(string(third), "b: TestTwo (b/b_test.go:7)") {
		t.Errorf("the model was not told: %s", third)
	}
	if disk, _ := os.ReadFile(filepath.Join(ws, "a/a.go")); string(disk) != files["a/a.go"] {
		t.Errorf("a/a.go written: %q", disk)
	}
}
