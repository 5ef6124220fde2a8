package server_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

func TestASessionIsResumedByANewServerProcess(t *testing.T) {
	state := t.TempDir()
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("remember", `{"note":"tests run with make check"}`)}},
		llmtest.Turn{Text: "The answer to the first question."},
		llmtest.Turn{Text: "The follow-up answer."},
		llmtest.Turn{Text: "Fresh start."},
	)
	f := newFixture(t, nil, srv, map[string]string{"XDG_STATE_HOME": state})
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	var res askResult
	if err := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "first question", "wait": true}, &res); err != nil || res.State != "completed" {
		t.Fatalf("%v %+v", err, res)
	}
	// A note the model proposes is kept only when the user says so.
	if err := f.editor.Command(server.CommandKeepNotes, nil, nil); err != nil {
		t.Fatal(err)
	}
	f.editor.Call("shutdown", nil, nil)
	f.editor.Notify("exit", nil)
	waitExit(t, f)

	// A new server over the same workspace and state dir: the editor restarted.
	g := newFixture(t, nil, srv, map[string]string{"XDG_STATE_HOME": state})
	g.root = f.root
	g.editor.Initialize(f.root, servertest.Caps{}, nil)
	if err := g.editor.Command(server.CommandAsk, map[string]any{"prompt": "and then?", "wait": true}, &res); err != nil {
		t.Fatal(err)
	}
	followUp := srv.Requests()[2]
	if !strings.Contains(toJSON(followUp["messages"]), "The answer to the first question.") || llmtest.FirstUserText(followUp) != "first question" {
		t.Fatalf("the follow-up did not continue the stored session: %s", toJSON(followUp["messages"]))
	}
	sys := followUp["messages"].([]any)[0].(map[string]any)["content"].(string)
	if !strings.Contains(sys, "- tests run with make check") {
		t.Fatalf("the remembered note is not in the system prompt:\n%s", sys)
	}

	var list struct {
		Current  string `json:"current"`
		Sessions []struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		} `json:"sessions"`
	}
	var fresh struct {
		Session string `json:"session"`
	}
	if err := g.editor.Command(server.CommandNewSession, nil, &fresh); err != nil {
		t.Fatal(err)
	}
	if err := g.editor.Command(server.CommandAsk, map[string]any{"prompt": "new topic", "wait": true}, &res); err != nil {
		t.Fatal(err)
	}
	if n := llmtest.CountRole(srv.Requests()[3], "user"); n != 1 {
		t.Fatalf("a new session must start empty, got %d user messages", n)
	}
	if err := g.editor.Command(server.CommandListSessions, nil, &list); err != nil || len(list.Sessions) != 2 || list.Current != fresh.Session {
		t.Fatalf("list: %+v %v", list, err)
	}
	old := list.Sessions[1]
	if old.Title != "first question" {
		t.Fatalf("titles: %+v", list.Sessions)
	}
	var switched struct {
		Messages int `json:"messages"`
	}
	if err := g.editor.Command(server.CommandSwitchSession, map[string]any{"id": old.ID}, &switched); err != nil || switched.Messages != 6 {
		t.Fatalf("switch: %+v %v", switched, err)
	}
	if err := g.editor.Command(server.CommandSwitchSession, map[string]any{"id": "../../etc"}, nil); err == nil {
		t.Fatal("a bad session id was accepted")
	}
	var forgot struct {
		Forgotten int      `json:"forgotten"`
		Notes     []string `json:"notes"`
	}
	if err := g.editor.Command(server.CommandForget, map[string]any{"index": 1}, &forgot); err != nil || forgot.Forgotten != 1 || len(forgot.Notes) != 0 {
		t.Fatalf("forget: %+v %v", forgot, err)
	}
}
