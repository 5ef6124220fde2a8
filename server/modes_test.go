package server_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// offeredTools are the tool names of an OpenAI chat request.
func offeredTools(body map[string]any) []string {
	var names []string
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		if fn, ok := t.(map[string]any)["function"].(map[string]any); ok {
			names = append(names, fn["name"].(string))
		}
	}
	return names
}

// TestExplainIsReadOnlyAsACPsAskMode: "Explain with agent" runs in ask mode,
// as ACP's Ask does: the model is offered no tool that writes or runs, a
// write it asks for anyway stages nothing, and there is no proposal.
func TestExplainIsReadOnlyAsACPsAskMode(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"a.go","content":"package b\n"}`)}},
		llmtest.Turn{Text: "It declares package a."},
	)
	f := newFixture(t, map[string]string{"a.go": "package a\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	u := f.uri("a.go")
	f.editor.Open(u, "package a\n")
	var explain *action
	actions := codeActions(t, f, map[string]any{
		"textDocument": map[string]any{"uri": u},
		"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 9}},
		"context":      map[string]any{"diagnostics": []any{}},
	})
	for i := range actions {
		if actions[i].Title == "Explain with agent" {
			explain = &actions[i]
		}
	}
	if explain == nil || explain.Command.Arguments[0]["mode"] != "ask" {
		t.Fatalf("the Explain action: %+v", explain)
	}
	args := explain.Command.Arguments[0]
	args["wait"] = true
	var res askResult
	if err := f.editor.Command(explain.Command.Command, args, &res); err != nil {
		t.Fatal(err)
	}
	if res.State != "completed" || res.Answer != "It declares package a." || res.Diff != "" {
		t.Fatalf("%+v", res)
	}
	offered := strings.Join(offeredTools(srv.Requests()[0]), " ")
	for _, bad := range []string{"write_file", "edit_file", "execute_command", "remember"} {
		if strings.Contains(offered, bad) {
			t.Errorf("Explain offered %s: %s", bad, offered)
		}
	}
	if !strings.Contains(offered, "read_file") {
		t.Errorf("Explain cannot read: %s", offered)
	}
	if f.disk("a.go") != "package a\n" {
		t.Fatal("the file changed")
	}
	// Control: the same words in code mode are offered the writing tools.
	srv2 := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "ok"})
	g := newFixture(t, map[string]string{"a.go": "package a\n"}, srv2, nil)
	g.editor.Initialize(g.root, servertest.Caps{}, nil)
	g.ask(map[string]any{"prompt": "explain", "mode": "code", "wait": true})
	if offered := strings.Join(offeredTools(srv2.Requests()[0]), " "); !strings.Contains(offered, "write_file") {
		t.Fatalf("code mode: %s", offered)
	}
	if err := g.editor.Command(server.CommandAsk, map[string]any{"prompt": "x", "mode": "yolo"}, nil); err == nil || !strings.Contains(err.Error(), "unknown mode \"yolo\": ask, code or plan") {
		t.Fatalf("an unknown mode: %v", err)
	}
}

// TestTheRunAfterACancelledOneIsToldItsChangesWereDropped: as in ACP, the
// next run of the session learns that what the cancelled one staged is
// gone, which its history alone would not say.
func TestTheRunAfterACancelledOneIsToldItsChangesWereDropped(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"a.go","content":"package b\n"}`)}},
		llmtest.Turn{Delay: servertest.Timeout, Text: "never"},
		llmtest.Turn{Text: "Done."},
	)
	f := newFixture(t, map[string]string{"a.go": "package a\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
	first := f.ask(map[string]any{"prompt": "rename the package"})
	toolstest.Poll(t, "the second model call", func() bool { return len(srv.Requests()) == 2 })
	if err := f.editor.Command(server.CommandCancel, map[string]any{"id": first.RunID}, nil); err != nil {
		t.Fatal(err)
	}
	if end := f.waitEnd(first.RunID); end != "Cancelled" {
		t.Fatalf("the first run: %q", end)
	}
	second := f.ask(map[string]any{"prompt": "what now?", "wait": true})
	if second.Answer != "Done." {
		t.Fatalf("%+v", second)
	}
	msgs, _ := srv.Requests()[2]["messages"].([]any)
	last := toJSON(msgs[len(msgs)-1])
	if !strings.Contains(last, "the previous turn was cancelled: the changes it staged were discarded") || !strings.Contains(last, "what now?") {
		t.Fatalf("the task after the cancel: %s", last)
	}
}

// TestAClientThatShowsAnswersGetsNoDocumentOfThem: Neovim 0.10 declares
// showDocument, and our plugin shows a waited run's answer and a proposal's
// diff itself: each run opened a second copy in a split of its own. A run
// it did not wait for (picked from the code-action menu) is said in a
// message instead; a client that does not say so still gets the documents.
func TestAClientThatShowsAnswersGetsNoDocumentOfThem(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Text: "Waited answer."},
		llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"b.txt","content":"b\n"}`)}},
		llmtest.Turn{Text: "Menu answer."},
		llmtest.Turn{Text: "Control answer."},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{ShowDocument: true, Progress: true, PromptInput: true, ShowsAnswers: true}, nil)
	if res := f.ask(map[string]any{"prompt": "q", "wait": true}); res.Answer != "Waited answer." {
		t.Fatalf("%+v", res)
	}
	menu := f.ask(map[string]any{"prompt": "make b"})
	f.waitEnd(menu.RunID)
	f.editor.Wait("the menu run's message", func() bool {
		return slices.ContainsFunc(f.editor.Messages(), func(m string) bool { return strings.Contains(m, "Menu answer.") })
	})
	var show struct {
		Diff  string `json:"diff"`
		Shown bool   `json:"shown"`
	}
	if err := f.editor.Command(server.CommandShowProposal, map[string]any{"id": menu.ProposalID}, &show); err != nil || show.Shown || !strings.Contains(show.Diff, "+b") {
		t.Fatalf("show: %+v %v", show, err)
	}
	if shown := f.editor.Shown(); len(shown) != 0 {
		t.Fatalf("documents shown to a client that shows answers itself: %v", shown)
	}
	for _, m := range f.editor.Messages() {
		if strings.Contains(m, "Waited answer.") {
			t.Fatalf("the waited answer was also a message: %q", m)
		}
	}
	// Control: the same client without showsAnswers gets the answer document.
	g := newFixture(t, nil, srv, nil)
	g.editor.Initialize(g.root, servertest.Caps{ShowDocument: true, Progress: true, PromptInput: true}, nil)
	g.ask(map[string]any{"prompt": "q", "wait": true})
	if shown := g.editor.Shown(); len(shown) != 1 || !strings.HasSuffix(string(shown[0]), "run-1.md") {
		t.Fatalf("control: %v", shown)
	}
}

// TestTheNextRunIsToldWhatBecameOfTheProposal: as in ACP, a discarded
// proposal is news to the model, which would otherwise build on it.
func TestTheNextRunIsToldWhatBecameOfTheProposal(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"a.go","content":"package b\n"}`)}},
		llmtest.Turn{Text: "Renamed."},
		llmtest.Turn{Text: "Understood."},
	)
	f := newFixture(t, map[string]string{"a.go": "package a\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	first := f.ask(map[string]any{"prompt": "rename the package", "wait": true})
	if err := f.editor.Command(server.CommandDiscardProposal, map[string]any{"id": first.ProposalID}, nil); err != nil {
		t.Fatal(err)
	}
	f.ask(map[string]any{"prompt": "and now?", "wait": true})
	msgs := srv.Requests()[2]["messages"].([]any)
	if last := toJSON(msgs[len(msgs)-1]); !strings.Contains(last, "the user did not accept the changes you proposed in the previous turn") || !strings.Contains(last, "and now?") {
		t.Fatalf("the task after a discard: %s", last)
	}
}
