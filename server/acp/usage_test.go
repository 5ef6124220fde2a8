package acp_test

import (
	"context"
	"math"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/llm/openai"
)

func usageUpdates(updates []sdk.SessionUpdate) []*sdk.SessionUsageUpdate {
	var out []*sdk.SessionUsageUpdate
	for _, u := range updates {
		if u.UsageUpdate != nil {
			out = append(out, u.UsageUpdate)
		}
	}
	return out
}

// Each model call is followed by the context meter: the tokens the
// conversation takes (the provider's count) of the model's window; a
// server whose prices are not known gets no cost.
func TestUsageUpdateAfterEachModelCall(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "list_files", Args: `{}`}}},
		llmtest.Turn{Text: "Two files."},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, fixtureOptions{})
	s := f.newSession()
	resp := f.prompt(s.SessionId, sdk.TextBlock("what is here?"))
	meters := usageUpdates(f.updates())
	if len(meters) != 2 {
		t.Fatalf("usage updates = %d, want one per model call (2)", len(meters))
	}
	last := meters[1]
	if last.Size != 32_768 || last.Used <= meters[0].Used || last.Cost != nil {
		t.Errorf("meters = %s", toJSON(meters))
	}
	// The provider counted the last request's input; the answer's output joins it.
	if resp.Usage == nil || last.Used > resp.Usage.InputTokens+resp.Usage.OutputTokens || last.Used < resp.Usage.InputTokens/2 {
		t.Errorf("used %d of a turn that took %+v", last.Used, resp.Usage)
	}
}

// A hosted model with a known price also gets the session's cost, summed
// over its turns, at the price its answers carry (the model that answered:
// cmd's provider chain prices each tier).
func TestUsageUpdateCost(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "One."}, llmtest.Turn{Text: "Two."})
	f := newFixture(t, nil, nil, fixtureOptions{
		env: map[string]string{"AGENT_LSP_MODEL": "gpt-4.1-mini", "OPENAI_API_KEY": "sk-test"},
		// The hosted model's settings (no base URL), its wire served here.
		provider: func(ctx context.Context, s config.Settings) (llm.Provider, error) {
			p, err := openai.New(openai.Config{Model: s.Model, APIKey: s.OpenAIKey, BaseURL: srv.URL + "/v1"})
			price, known := s.ModelPrice()
			if !known {
				t.Fatalf("%s has no price", s.Model)
			}
			return llm.Priced(p, price), err
		},
	})
	s := f.newSession()
	var total llm.Usage
	for _, words := range []string{"one", "two"} {
		r := f.prompt(s.SessionId, sdk.TextBlock(words))
		total.Add(llm.Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens})
	}
	meters := usageUpdates(f.updates())
	// The catalog's price and window of OpenAI's gpt-4.1-mini.
	hosted := config.Settings{Provider: config.ProviderOpenAI, Model: "gpt-4.1-mini"}
	price, _ := hosted.ModelPrice()
	last := meters[len(meters)-1]
	if len(meters) != 2 || last.Size != hosted.Window() || hosted.Window() == 0 || last.Cost == nil || last.Cost.Currency != "USD" ||
		math.Abs(last.Cost.Amount-price.Cost(total)) > 1e-12 || last.Cost.Amount <= meters[0].Cost.Amount {
		t.Errorf("meters = %s, want the cost of %+v", toJSON(meters), total)
	}
}
