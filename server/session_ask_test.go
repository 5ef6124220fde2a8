package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// TestAskInAListedSessionLoadsIt: agent.ask with a session id from
// agent.listSessions that this server has not loaded yet continues that
// session, as agent.switchSession would (it answered "no session" before).
func TestAskInAListedSessionLoadsIt(t *testing.T) {
	state := t.TempDir()
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "First answer."}, llmtest.Turn{Text: "Second answer."}, llmtest.Turn{Text: "Continued."})
	f := newFixture(t, nil, srv, map[string]string{"XDG_STATE_HOME": state})
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	var res askResult
	if err := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "first question", "wait": true}, &res); err != nil {
		t.Fatal(err)
	}
	// A second, newer session: a new server resumes that one, and loads no other.
	if err := f.editor.Command(server.CommandNewSession, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "second question", "wait": true}, &res); err != nil {
		t.Fatal(err)
	}
	f.editor.Call("shutdown", nil, nil)
	f.editor.Notify("exit", nil)
	waitExit(t, f)

	g := newFixture(t, nil, srv, map[string]string{"XDG_STATE_HOME": state})
	g.root = f.root
	g.editor.Initialize(f.root, servertest.Caps{}, nil)
	var list struct {
		Sessions []struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		} `json:"sessions"`
	}
	if err := g.editor.Command(server.CommandListSessions, nil, &list); err != nil {
		t.Fatal(err)
	}
	var old string
	for _, s := range list.Sessions {
		if s.Title == "first question" {
			old = s.ID
		}
	}
	if err := g.editor.Command(server.CommandAsk, map[string]any{"prompt": "and then?", "session": old, "wait": true}, &res); err != nil {
		t.Fatalf("ask in a listed session: %v", err)
	}
	if last := srv.Requests()[2]; !strings.Contains(toJSON(last["messages"]), "First answer.") {
		t.Fatalf("the ask did not continue the listed session: %s", toJSON(last["messages"]))
	}
	if err := g.editor.Command(server.CommandAsk, map[string]any{"prompt": "x", "session": "no-such-session"}, nil); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Fatalf("an unknown session: %v", err)
	}
}

// TestASecondAskInTheSameSessionWaitsItsTurn: an ask while the session's
// run is going is queued behind it (it answered an error before), then
// continues the conversation with the first run's turn in it.
func TestASecondAskInTheSameSessionWaitsItsTurn(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Delay: 300 * time.Millisecond, Text: "The first answer."},
		llmtest.Turn{Text: "The second answer."},
	)
	f := newFixture(t, nil, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
	first := f.ask(map[string]any{"prompt": "first question"})
	second := f.ask(map[string]any{"prompt": "an unrelated question"})
	if end := f.waitEnd(first.RunID); !strings.HasPrefix(end, "Completed") {
		t.Fatalf("first run: %q", end)
	}
	if end := f.waitEnd(second.RunID); !strings.HasPrefix(end, "Completed") {
		t.Fatalf("second run: %q", end)
	}
	queued := false
	for _, p := range f.editor.Progress() {
		if strings.Contains(p.Message, "Queued behind "+first.RunID) {
			queued = true
		}
	}
	if !queued {
		t.Error("the progress does not say the second run waited")
	}
	if msgs := toJSON(srv.Requests()[1]["messages"]); !strings.Contains(msgs, "The first answer.") || !strings.Contains(msgs, "an unrelated question") {
		t.Fatalf("the second run did not continue after the first: %s", msgs)
	}
}
