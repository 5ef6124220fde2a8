package server_test

import (
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
