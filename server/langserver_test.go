package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/agentrun/agentruntest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
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
	if res.State != "completed" || !strings.HasSuffix(res.Answer, "Language server: no new errors (2 file(s) checked).") {
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
	}
	if err := f.editor.Command(server.CommandStatus, map[string]any{}, &status); err != nil {
		t.Fatal(err)
	}
	if len(status.LanguageServers) != 1 || status.LanguageServers[0].Server != "gopls" || !strings.HasPrefix(status.LanguageServers[0].State, "running (pid ") {
		t.Errorf("agent.status: %+v", status.LanguageServers)
	}
}
