package server_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

type optionsStatus struct {
	Model    string `json:"model"`
	Thinking string `json:"thinking"`
	Context  *struct {
		Used int `json:"used"`
		Size int `json:"size"`
	} `json:"context"`
}

// The client switches the model and thinking of the next runs; agent.status
// shows them and how full the model's window was at the latest call.
func TestSessionOptionsSwitchModelAndThinking(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "One."}, llmtest.Turn{Text: "Two."})
	f := newFixture(t, nil, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	var st optionsStatus
	if err := f.editor.Command(server.CommandStatus, nil, &st); err != nil || st.Model != "gpt-test" || st.Thinking != "" || st.Context != nil {
		t.Fatalf("status before any run: %+v %v", st, err)
	}
	f.ask(map[string]any{"prompt": "one", "wait": true})
	if err := f.editor.Command(server.CommandStatus, nil, &st); err != nil || st.Context == nil || st.Context.Size != 32_768 || st.Context.Used <= 0 {
		t.Fatalf("status after a run: %+v %v", st, err)
	}
	var set struct{ Model, Thinking string }
	if err := f.editor.Command(server.CommandSetSessionOptions, map[string]any{"model": "gpt-other", "thinking": "high"}, &set); err != nil || set.Model != "gpt-other" || set.Thinking != "high" {
		t.Fatalf("setSessionOptions: %+v %v", set, err)
	}
	if err := f.editor.Command(server.CommandStatus, nil, &st); err != nil || st.Model != "gpt-other" || st.Thinking != "high" {
		t.Fatalf("status after the switch: %+v %v", st, err)
	}
	f.ask(map[string]any{"prompt": "two", "wait": true})
	reqs := srv.Requests()
	if reqs[0]["model"] != "gpt-test" || reqs[1]["model"] != "gpt-other" || reqs[1]["reasoning_effort"] != "high" {
		t.Errorf("requests: model %v then %v, reasoning_effort %v", reqs[0]["model"], reqs[1]["model"], reqs[1]["reasoning_effort"])
	}
	err := f.editor.Command(server.CommandSetSessionOptions, map[string]any{"thinking": "extreme"}, nil)
	if err == nil || !strings.Contains(err.Error(), "thinking must be default, minimal, low, medium, high") {
		t.Errorf("an unknown thinking level: %v", err)
	}
}
