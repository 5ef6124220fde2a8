package server_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/mcp/mcptest"
)

type mcpStatus struct {
	MCP []struct {
		Name    string   `json:"name"`
		Origin  string   `json:"origin"`
		State   string   `json:"state"`
		Error   string   `json:"error"`
		Tools   []string `json:"tools"`
		Allowed []string `json:"allowed"`
	} `json:"mcp"`
	ConfigWarnings []string `json:"configWarnings"`
}

func (f *fixture) mcpStatus() mcpStatus {
	f.t.Helper()
	var st mcpStatus
	if err := f.editor.Command(server.CommandStatus, nil, &st); err != nil {
		f.t.Fatal(err)
	}
	return st
}

// TestMCPServersStartWithTheFirstRunAndAskTheEditor: a server from the
// editor's settings is not started at initialize; the first run asks before
// starting it (editors may take these settings from the repository), a call
// off allowed_tools asks through showMessageRequest (Deny first) and
// agent.status lists the server and its tools.
func TestMCPServersStartWithTheFirstRunAndAskTheEditor(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"TEST_DIR": dir}
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("mcp__test__lookup", `{"name":"x\n"}`)}},
		llmtest.Turn{Calls: []llmtest.Call{call("mcp__test__greet", `{"name":"Ada"}`)}},
		llmtest.Turn{Text: "done"},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, env)
	f.editor.Initialize(f.root, servertest.Caps{UserSettings: true}, map[string]any{"mcp": map[string]any{"servers": map[string]any{
		"test": map[string]any{"command": mcptest.TestServer(t), "env": map[string]string{"MCPTEST_DIR": "${TEST_DIR}"}, "allowedTools": []string{"greet"}},
	}}})
	st := f.mcpStatus()
	if len(st.MCP) != 1 || st.MCP[0].State != "not started" || st.MCP[0].Origin != "editor" {
		t.Fatalf("%+v", st.MCP)
	}
	if _, err := os.Stat(filepath.Join(dir, "starts")); err == nil {
		t.Fatal("the server started at initialize")
	}
	f.editor.SetApprove("Allow once")
	if res := f.ask(map[string]any{"prompt": "look it up", "wait": true}); res.State != "completed" || res.Answer != "done" {
		t.Fatalf("%+v", res)
	}
	asked := f.editor.Asked()
	if len(asked) != 2 || !strings.Contains(asked[0], "start MCP server test: ") || !strings.Contains(asked[0], "editor's settings") {
		t.Fatalf("asked %q: the start of an editor-configured server must be asked about first", asked)
	}
	if !strings.Contains(asked[1], `mcp__test__lookup {"name":"x\n"}`) || strings.Count(asked[1], "\n") != 2 {
		t.Fatalf("asked %q (greet is allowed; the question shows the call escaped)", asked)
	}
	if actions := f.editor.AskedActions(); actions[0][0] != "Deny" {
		t.Fatalf("actions %q", actions)
	}
	results := srv.Requests()[2]["messages"].([]any)
	if last := results[len(results)-1].(map[string]any)["content"]; last != `{"greeting":"Hello, Ada!"}` {
		t.Fatalf("greet's result: %v", last)
	}
	st = f.mcpStatus()
	if s := st.MCP[0]; s.State != "ready" || !slices.Contains(s.Tools, "mcp__test__lookup") || !slices.Equal(s.Allowed, []string{"mcp__test__greet"}) {
		t.Fatalf("%+v", s)
	}
	if logs := strings.Join(f.editor.Logs(), "\n"); !strings.Contains(logs, "[AGENT] MCP server test (stdio) started: 11 tool(s)") {
		t.Fatalf("the trace does not say the server started:\n%s", logs)
	}
}

func TestAnUntrustedProjectsMCPServersAreNamedInTheStatus(t *testing.T) {
	f := newFixture(t, map[string]string{".mcp.json": `{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "touch pwned"]}}}`}, nil, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	st := f.mcpStatus()
	if len(st.MCP) != 0 || !strings.Contains(strings.Join(st.ConfigWarnings, "\n"), ".mcp.json: MCP server(s) evil ignored") {
		t.Fatalf("%+v", st)
	}
}
