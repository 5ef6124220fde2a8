package server_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// TestUsageAndSandboxInProgressAndStatus: the progress end message and
// agent.status report a run's tokens (reasoning and cached included), and
// agent.status the sandbox level commands run at.
func TestUsageAndSandboxInProgressAndStatus(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Reasoning: "Read it first.", Calls: []llmtest.Call{call("read_file", `{"path":"a.txt"}`)}},
		llmtest.Turn{Text: "It says alpha."},
	)
	f := newFixture(t, map[string]string{"a.txt": "alpha\n", ".agent-lsp.toml": "auto_apply = true\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
	res := f.ask(map[string]any{"prompt": "what does a.txt say?"})
	end := f.waitEnd(res.RunID)
	if !strings.HasPrefix(end, "Completed · ") || !strings.Contains(end, "(2 cached), 10 output (3 reasoning) tokens") {
		t.Fatalf("progress end %q", end)
	}
	var st struct {
		Runs []struct {
			Usage struct {
				Input, Output, Cached, Reasoning int
			} `json:"usage"`
		} `json:"runs"`
		Sandbox struct {
			Level, Detail string
		} `json:"sandbox"`
		ToolProtocol   string   `json:"toolProtocol"`
		ConfigWarnings []string `json:"configWarnings"`
	}
	if err := f.editor.Command(server.CommandStatus, nil, &st); err != nil {
		t.Fatal(err)
	}
	if u := st.Runs[0].Usage; u.Input == 0 || u.Output != 10 || u.Cached != 2 || u.Reasoning != 3 {
		t.Fatalf("status usage %+v", u)
	}
	if st.Sandbox.Level == "" || !strings.HasPrefix(st.Sandbox.Detail, st.Sandbox.Level) || st.ToolProtocol != "native" {
		t.Fatalf("status sandbox %+v, tool protocol %q", st.Sandbox, st.ToolProtocol)
	}
	if len(st.ConfigWarnings) != 1 || !strings.Contains(st.ConfigWarnings[0], "auto_apply ignored") {
		t.Fatalf("status config warnings %q", st.ConfigWarnings)
	}
}
