package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun/agentruntest"
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
