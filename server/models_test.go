package server_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// With no model configured, the model is found once a connection, as on
// every wire (agentrun.Models), not again for each run.
func TestTheModelIsFoundOnceAConnection(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	var finds atomic.Int32
	find := func(ctx context.Context, s config.Settings) (config.Settings, error) {
		finds.Add(1)
		s.Model = "gpt-found"
		return s, nil
	}
	env := map[string]string{} // the fixture fills it in, AGENT_LSP_MODEL too, which goes
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, env, func(o *server.Options) {
		o.FindModel = find
		o.Env = func(k string) string {
			if k == "AGENT_LSP_MODEL" {
				return ""
			}
			return env[k]
		}
	})
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	for _, answer := range []string{"one", "two"} {
		if res := f.ask(map[string]any{"prompt": "say " + answer, "wait": true}); res.Answer != answer {
			t.Fatalf("answer %q, want %q", res.Answer, answer)
		}
	}
	if n := finds.Load(); n != 1 {
		t.Errorf("the model was looked for %d times over two runs, want once", n)
	}
	for i, req := range srv.Requests() {
		if req["model"] != "gpt-found" {
			t.Errorf("request %d asked model %v, want the one found", i, req["model"])
		}
	}
}
