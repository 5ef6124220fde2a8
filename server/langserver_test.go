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
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{agentruntest.EditCall("a/a.go", "x, y int", "x, y, z int")}},
		llmtest.Turn{Calls: []llmtest.Call{agentruntest.EditCall("b/b.go", "a.Add(1, 1)", "a.Add(1, 1, 0)")}},
		llmtest.Turn{Text: "Add takes z; Two passes 0."})
	f := newFixture(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": "package a\n\nfunc Add(x, y int) int { return x + y }\n",
		"b/b.go": "package b\n\nimport \"example.com/m/a\"\n\nfunc Two() int {\n\treturn a.Add(1, 1)\n}\n",
	}, srv, nil)
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
