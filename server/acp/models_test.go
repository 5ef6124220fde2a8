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

// The model picker says what the catalog knows of each model (its window,
// price and whether it takes images, as `agent-lsp models` does), and the
// thinking picker offers only the levels the model takes: none beyond the
// model's default for one that does not reason.
func TestThePickersShowWhatTheCatalogKnows(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	srv.SetModels([]string{"gpt-4.1-mini", "o3-mini", "local-coder"}, "")
	f := newFixture(t, nil, srv, fixtureOptions{env: map[string]string{"AGENT_LSP_MODEL": "gpt-4.1-mini"}})
	s := f.newSession()
	about := map[string]string{}
	var levels []string
	for _, o := range s.ConfigOptions {
		for _, v := range *o.Select.Options.Ungrouped {
			switch o.Select.Id {
			case "model":
				if v.Description != nil {
					about[string(v.Value)] = *v.Description
				}
			case "thinking":
				levels = append(levels, string(v.Value))
			}
		}
	}
	at := func(model string) string {
		return config.Settings{Provider: config.ProviderOpenAI, BaseURL: srv.URL + "/v1", Model: model}.Facts().String()
	}
	for _, m := range []string{"gpt-4.1-mini", "o3-mini", "local-coder"} {
		if about[m] == "" || about[m] != at(m) {
			t.Errorf("%s: described %q, want %q", m, about[m], at(m))
		}
	}
	if about["local-coder"] != "context unknown, price unknown, text only" || about["gpt-4.1-mini"] == about["local-coder"] {
		t.Errorf("descriptions %q", about)
	}
	if len(levels) != 1 || levels[0] != "default" {
		t.Errorf("thinking levels of gpt-4.1-mini: %q, want only the model's default", levels)
	}
}
