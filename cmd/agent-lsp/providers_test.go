package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

func TestEveryConfiguredProviderHasAConstructor(t *testing.T) {
	names := config.Providers()
	for _, name := range names {
		if constructors[name] == nil {
			t.Errorf("config knows provider %q but there is no constructor for it", name)
		}
	}
	for name := range constructors {
		if !slices.Contains(names, name) {
			t.Errorf("constructor for %q, a provider config.Providers does not list (Validate would refuse it)", name)
		}
	}
}

func TestUnknownProviderListsTheKnownOnes(t *testing.T) {
	_, err := baseProvider(context.Background(), config.Settings{Provider: "claude", Model: "x"})
	if err == nil {
		t.Fatal("an unknown provider was built")
	}
	for _, want := range append([]string{`"claude"`}, config.Providers()...) {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v: want mention of %s", err, want)
		}
	}
}

func TestTheFallbackHintOnlyWhenNothingToContinueOn(t *testing.T) {
	for _, c := range []struct {
		s    config.Settings
		hint bool
	}{
		{config.Settings{}, true},
		{config.Settings{Fallback: []string{""}}, true},
		{config.Settings{Fallback: []string{"gemini:g"}}, false},
		{config.Settings{Degraded: "openai:cheap"}, false},
	} {
		got := providerHint(llm.ErrUnavailable, c.s)
		if strings.Contains(got, "AGENT_LSP_FALLBACK") != c.hint {
			t.Errorf("fallback %q, degraded %q: hint %q", c.s.Fallback, c.s.Degraded, got)
		}
	}
}

func TestNESClientIsItsOwnModelOnTheAgentsServer(t *testing.T) {
	s := config.Settings{Provider: config.ProviderOpenAI, Model: "gpt-4.1", BaseURL: "http://localhost:8000/v1", OpenAIKey: "k",
		ToolProtocol: "json", NES: config.NES{Model: "zeta"}}
	p, err := newProviders().NewNES(context.Background(), s)
	if err != nil || p.Name() != "openai:zeta" {
		t.Fatalf("%v %v", p, err)
	}
}

// TestEachTierAnswersAtItsOwnPrice: the primary's answers carry its price
// (here the configured one); a fallback's carry the fallback's, not the
// primary's (a server of its own: not known).
func TestEachTierAnswersAtItsOwnPrice(t *testing.T) {
	primary := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "from the primary"}, llmtest.Turn{Status: 404, Body: `{"error":{"message":"The model does not exist","type":"invalid_request_error","code":"model_not_found"}}`})
	fallback := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "from the fallback"})
	s := config.Settings{Provider: config.ProviderOpenAI, Model: "m1", BaseURL: primary.URL + "/v1", OpenAIKey: "k",
		Prices: map[string][]float64{"m1": {1, 0.5, 4}}, Fallback: []string{"openai:m2@" + fallback.URL + "/v1"}, RetryAttempts: 1}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	p, err := newProviders().New(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}
	resp, err := p.Chat(context.Background(), req)
	if err != nil || resp.Text != "from the primary" || resp.Price == nil || *resp.Price != (llm.Price{Input: 1, Cached: 0.5, Output: 4}) {
		t.Fatalf("the primary's answer: %q at %+v, %v", resp.Text, resp.Price, err)
	}
	resp, err = p.Chat(context.Background(), req)
	if err != nil || resp.Text != "from the fallback" || resp.Price != nil {
		t.Fatalf("the fallback's answer: %q at %+v, %v", resp.Text, resp.Price, err)
	}
}
