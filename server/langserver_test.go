package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/agentrun/agentruntest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools"
)

// TestTheLanguageServersCheckIsInTheAnswer: through the LSP wire, the
// edit's result names the caller it broke, the answer document ends with
// the run-end check, and agent.status lists gopls running.
func TestTheLanguageServersCheckIsInTheAnswer(t *testing.T) {
	agentruntest.WithGopls(t)
	srv := llmtest.NewOpenAIServer(t, agentruntest.AddThirdOperand()...)
	f := newFixture(t, agentruntest.AddModule, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	res := f.ask(map[string]any{"prompt": "give Add a third operand", "wait": true})
	if res.State != "completed" || !strings.Contains(res.Answer, "Language server: no new errors (2 file(s) checked).\n\n"+agentruntest.NoTestTouched) {
		t.Fatalf("%+v", res)
	}
	second, _ := json.Marshal(srv.Requests()[1]["messages"])
	if !strings.Contains(string(second), "b/b.go:6:") {
		t.Errorf("the edit's result did not name the broken caller: %s", second)
	}
	var status struct {
		LanguageServers []struct {
			Server string `json:"server"`
			State  string `json:"state"`
		} `json:"languageServers"`
		Proposals []struct {
			ID    string `json:"id"`
			Check string `json:"check"`
			Tests string `json:"tests"`
		} `json:"proposals"`
	}
	if err := f.editor.Command(server.CommandStatus, map[string]any{}, &status); err != nil {
		t.Fatal(err)
	}
	if len(status.LanguageServers) != 1 || status.LanguageServers[0].Server != "gopls" || !strings.HasPrefix(status.LanguageServers[0].State, "running (pid ") {
		t.Errorf("agent.status: %+v", status.LanguageServers)
	}
	if p := status.Proposals; len(p) != 1 || p[0].Check != "Language server: no new errors (2 file(s) checked)." || !strings.HasPrefix(p[0].Tests, agentruntest.NoTestTouched) {
		t.Errorf("agent.status's proposal does not say what the review found: %+v", p)
	}
}

// TestAHostileServerIsNeverStartedUnasked: through the LSP wire, with the
// product's starter, a configured server that harms on its start does
// nothing when the run reads its file, nor when the edit's check asks and
// the user dismisses the question; at level full the sandbox holds it.
// Seen by effect, after the connection's end stopped every server.
func TestAHostileServerIsNeverStartedUnasked(t *testing.T) {
	h := agentruntest.NewHostileServer(t)
	srv := llmtest.NewOpenAIServer(t, agentruntest.HostileTurns()...)
	env := map[string]string{}
	f := newFixture(t, agentruntest.HostileFiles, srv, env)
	agentruntest.WriteUserConfig(t, env["XDG_CONFIG_HOME"], h.Config)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	res := f.ask(map[string]any{"prompt": "change one to two", "wait": true})
	if res.State != "completed" {
		t.Fatalf("%+v", res)
	}
	f.shutdown()
	if effects := h.Effects(); len(effects) > 0 {
		t.Errorf("at level %s the server ran: %v", tools.SandboxLevel(), effects)
	}
	if tools.SandboxLevel().ServerNeedsApproval() {
		third, _ := json.Marshal(srv.Requests()[2]["messages"])
		if !strings.Contains(string(third), "did not allow") || len(f.editor.Asked()) != 1 {
			t.Errorf("asked %q; the edit's result: %s", f.editor.Asked(), third)
		}
	}
}

// TestTheCheckReadsTheEditorsUnsavedBuffers: through the LSP wire with
// real gopls, the user renamed mathx.Add to Plus in an unsaved buffer; the
// model's edit of main.go to call mathx.Plus is checked against that
// buffer (no new errors), not the disk's Add.
func TestTheCheckReadsTheEditorsUnsavedBuffers(t *testing.T) {
	agentruntest.WithGopls(t)
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{agentruntest.EditCall("main.go", "mathx.Add(1, 2)", "mathx.Plus(1, 2)")}},
		llmtest.Turn{Text: "main calls Plus."})
	f := newFixture(t, map[string]string{
		"go.mod":         "module example.com/m\n\ngo 1.22\n",
		"mathx/mathx.go": "package mathx\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"main.go":        "package main\n\nimport \"example.com/m/mathx\"\n\nfunc main() { println(mathx.Add(1, 2)) }\n",
	}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	f.editor.Open(f.uri("mathx/mathx.go"), "package mathx\n\n// Plus adds.\nfunc Plus(a, b int) int { return a + b }\n")
	res := f.ask(map[string]any{"prompt": "call Plus", "wait": true})
	if res.State != "completed" || !strings.Contains(res.Answer, "Language server: no new errors (1 file(s) checked).\n\nTests: not run:") {
		t.Fatalf("%+v", res)
	}
}
