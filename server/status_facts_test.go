package server_test

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// agent.status says what is known of the next run's model: the catalog's
// context window, price and image support for a model it knows, nothing
// for another.
func TestStatusShowsWhatIsKnownOfTheModel(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	f := newFixture(t, nil, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	var st struct{ ModelFacts config.ModelFacts }
	if err := f.editor.Command(server.CommandStatus, nil, &st); err != nil || st.ModelFacts.Known || st.ModelFacts.ContextWindow != 0 || st.ModelFacts.Price != nil {
		t.Fatalf("status of an unknown model: %+v %v", st, err)
	}
	if err := f.editor.Command(server.CommandSetSessionOptions, map[string]any{"model": "gpt-4o-mini"}, nil); err != nil {
		t.Fatal(err)
	}
	want := config.Settings{Provider: config.ProviderOpenAI, BaseURL: srv.URL + "/v1", Model: "gpt-4o-mini"}.Facts()
	if err := f.editor.Command(server.CommandStatus, nil, &st); err != nil || !st.ModelFacts.Known || st.ModelFacts != want || !want.Images || want.ContextWindow == 0 {
		t.Errorf("status of gpt-4o-mini: %+v %v, want %+v", st.ModelFacts, err, want)
	}
}
