package acp_test

import (
	"context"
	"sync/atomic"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

// With no model configured, the model is found once a connection, as on
// every wire (agentrun.Models), not again for each session; each session
// shows it and runs on it.
func TestTheModelIsFoundOnceAConnection(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	var finds atomic.Int32
	find := func(ctx context.Context, s config.Settings) (config.Settings, error) {
		finds.Add(1)
		s.Model = "gpt-found"
		return s, nil
	}
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, fixtureOptions{env: map[string]string{"AGENT_LSP_MODEL": ""}, findModel: find})
	for _, answer := range []string{"one", "two"} {
		s := f.newSession()
		if resp := f.prompt(s.SessionId, sdk.TextBlock("say "+answer)); resp.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("session %s: %+v", answer, resp)
		}
	}
	if n := finds.Load(); n != 1 {
		t.Errorf("the model was looked for %d times over two sessions, want once", n)
	}
	for i, req := range srv.Requests() {
		if req["model"] != "gpt-found" {
			t.Errorf("request %d asked model %v, want the one found", i, req["model"])
		}
	}
}
