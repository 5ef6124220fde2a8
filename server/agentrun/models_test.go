package agentrun_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
)

// A wire's Models finds a model once for the settings finding reads, finds
// it again when they change, keeps no failure, and never looks for one
// where the settings name it.
func TestModelsAreFoundOncePerSettings(t *testing.T) {
	var finds int
	serverUp := false
	find := func(ctx context.Context, s config.Settings) (config.Settings, error) {
		finds++
		if !serverUp {
			return s, errors.New("no local model server found")
		}
		s.Provider, s.BaseURL, s.Model = config.ProviderOpenAI, "http://127.0.0.1:11434/v1", "found-for-"+s.OpenAIKey
		return s, nil
	}
	newProvider := func(ctx context.Context, s config.Settings) (llm.Provider, error) {
		return llmtest.NewScripted(), nil
	}
	m := agentrun.NewModels(newProvider, find)
	ctx := context.Background()
	resolve := func(s config.Settings) string {
		t.Helper()
		got, _, err := m.Resolve(ctx, s)
		if err != nil {
			return "error: " + err.Error()
		}
		return got.Model
	}
	unset := config.Settings{Provider: config.ProviderOpenAI}
	for i, step := range []struct {
		s         config.Settings
		up        bool
		want      string
		wantFinds int
		whatHolds string
	}{
		{unset, false, "error: no local model server found", 1, "a failure comes back"},
		{unset, true, "found-for-", 2, "a failure is not kept: the server started since is found"},
		{unset, true, "found-for-", 2, "what was found is kept"},
		{config.Settings{Provider: config.ProviderOpenAI, OpenAIKey: "k"}, true, "found-for-k", 3, "other keys: found again"},
		{unset, true, "found-for-", 3, "the first settings' model is still kept"},
		{config.Settings{Provider: config.ProviderOpenAI, OpenAIKey: "k", Model: "mine"}, true, "mine", 3, "a configured model is not looked for"},
	} {
		serverUp = step.up
		if got := resolve(step.s); got != step.want || finds != step.wantFinds {
			t.Fatalf("step %d (%s): model %q after %d finds, want %q after %d", i, step.whatHolds, got, finds, step.want, step.wantFinds)
		}
	}
}
