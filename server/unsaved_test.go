package server_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// TestCommandsSeeTheEditorsUnsavedBuffers over the LSP wire: the user typed
// in a.txt without saving; the agent's command reads what the editor shows,
// and its result says it did.
func TestCommandsSeeTheEditorsUnsavedBuffers(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("execute_command", `{"command":"cat a.txt"}`)}},
		llmtest.Turn{Text: "ok"},
	)
	f := newFixture(t, map[string]string{"a.txt": "saved on disk\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	f.editor.Open(f.uri("a.txt"), "typed, not saved\n")
	var res askResult
	if err := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "look", "wait": true}, &res); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[1]["messages"].([]any)
	observation := msgs[len(msgs)-1].(map[string]any)["content"].(string)
	if !strings.HasPrefix(observation, "typed, not saved\n") || !strings.Contains(observation, "unsaved text of a.txt") {
		t.Fatalf("the command did not see the unsaved buffer, or did not say so: %q", observation)
	}
}
