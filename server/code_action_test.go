package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

type action struct {
	Title   string `json:"title"`
	Kind    string `json:"kind"`
	Command struct {
		Command   string           `json:"command"`
		Arguments []map[string]any `json:"arguments"`
	} `json:"command"`
}

func TestCodeActionsListWithoutCallingTheModel(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"a.py","old_string":"    # AGENT: make it return 42\n","new_string":"    return 42\n"}`)}},
		llmtest.Turn{Text: "done"},
	)
	f := newFixture(t, nil, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true, Annotations: true, PromptInput: true}, nil)
	u := f.uri("a.py")
	text := "def f():\n    # AGENT: make it return 42\n    pass  # handle the empty case AI!\n-- plain comment\n"
	f.editor.Open(u, text)
	var actions []action
	params := map[string]any{
		"textDocument": map[string]any{"uri": u},
		"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 3, "character": 0}},
		"context": map[string]any{"diagnostics": []any{map[string]any{
			"range":   map[string]any{"start": map[string]any{"line": 2, "character": 4}, "end": map[string]any{"line": 2, "character": 8}},
			"message": "unused statement", "severity": 2,
		}}},
	}
	actions = codeActions(t, f, params)
	var titles []string
	for _, a := range actions {
		titles = append(titles, a.Kind+": "+a.Title)
		if a.Command.Command != server.CommandAsk {
			t.Errorf("%q carries %q", a.Title, a.Command.Command)
		}
	}
	want := []string{
		"refactor.rewrite: Agent: make it return 42",
		"refactor.rewrite: Agent: handle the empty case",
		"quickfix: Fix with agent: unused statement",
		"refactor.rewrite: Ask agent…",
		"refactor.rewrite: Plan with agent…",
		"refactor.rewrite: Explain with agent",
		"refactor.rewrite: Write tests with agent",
		"refactor.rewrite: Document with agent",
		"source: Review file with agent",
	}
	if strings.Join(titles, "\n") != strings.Join(want, "\n") {
		t.Fatalf("actions:\n%s\nwant:\n%s", strings.Join(titles, "\n"), strings.Join(want, "\n"))
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("listing code actions called the model %d times", n)
	}
	params["context"] = map[string]any{"diagnostics": []any{}, "only": []string{"quickfix"}}
	if only := codeActions(t, f, params); len(only) != 0 {
		t.Fatalf("only=quickfix without diagnostics: %v", only)
	}

	// Picking the instruction action runs it, and the prompt names the line.
	var res askResult
	if err := f.editor.Command(server.CommandAsk, actions[0].Command.Arguments[0], &res); err != nil {
		t.Fatal(err)
	}
	f.editor.Wait("the edit", func() bool { b, _ := f.editor.Buffer(u); return strings.Contains(b.Text, "    return 42\n    pass") })
	task := llmtest.FirstUserText(srv.Requests()[0])
	for _, want := range []string{"make it return 42", "comment on line 2", "File: a.py", "   2\t    # AGENT: make it return 42"} {
		if !strings.Contains(task, want) {
			t.Errorf("task lacks %q:\n%s", want, task)
		}
	}
	// The user sees the request as written: the note to the model is not in
	// the progress, the messages or the edit's label.
	f.editor.Wait("the run's end", func() bool { _, ended := f.editor.ProgressEnded("agent-lsp/" + res.RunID); return ended })
	shown := strings.Join(f.editor.MessagesAndProgress(), "\n") + fmt.Sprint(f.editor.Edits())
	if strings.Contains(shown, "This instruction") || !strings.Contains(shown, "make it return 42") {
		t.Errorf("the user was shown:\n%s", shown)
	}
}

func TestCodeActionInstructionSyntaxes(t *testing.T) {
	for line, want := range map[string]string{
		"// AGENT: add logging":          "add logging",
		"  # AGENT: fix the loop":        "fix the loop",
		"-- AGENT: use a join":           "use a join",
		"/* AGENT: inline this */":       "inline this",
		"<!-- AGENT: add alt text -->":   "add alt text",
		"x = 1 // rename to count AI!":   "rename to count",
		"; refactor this AI!":            "refactor this",
		" * AGENT: document the returns": "document the returns",
		"AGENT: not a comment":           "",
		"// nothing to do":               "",
		`s := "// AGENT: in a string"`:   `in a string"`, // no parser: a marker inside a string reads as a comment
	} {
		f := newFixture(t, nil, nil, nil)
		f.editor.Initialize(f.root, servertest.Caps{}, nil)
		u := f.uri("x.txt")
		f.editor.Open(u, line+"\n")
		actions := codeActions(t, f, map[string]any{
			"textDocument": map[string]any{"uri": u},
			"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}},
			"context":      map[string]any{"diagnostics": []any{}},
		})
		got := ""
		if strings.HasPrefix(actions[0].Title, "Agent: ") {
			got = strings.TrimPrefix(actions[0].Title, "Agent: ")
		}
		if got != want {
			t.Errorf("%q: instruction %q, want %q", line, got, want)
		}
	}
}

func codeActions(t testing.TB, f *fixture, params map[string]any) []action {
	t.Helper()
	var raw jsonrpc2.RawMessage
	if err := f.editor.Call("textDocument/codeAction", params, &raw); err != nil {
		t.Fatal(err)
	}
	var actions []action
	if err := json.Unmarshal(raw, &actions); err != nil {
		t.Fatal(err)
	}
	return actions
}

// TestAPanickingSourceOfCodeActionsLosesOnlyItsOwn: one source of actions
// that panics leaves the list of the others whole, and the request answers.
func TestAPanickingSourceOfCodeActionsLosesOnlyItsOwn(t *testing.T) {
	f := newFixture(t, nil, nil, nil)
	f.srv.AddPanicActionSource()
	f.editor.Initialize(f.root, servertest.Plain, nil)
	u := f.uri("a.go")
	f.editor.Open(u, "package a\n")
	actions := codeActions(t, f, map[string]any{"textDocument": map[string]any{"uri": u},
		"range": span(0, 0, 0, 0), "context": map[string]any{"diagnostics": []any{}}})
	var titles []string
	for _, a := range actions {
		titles = append(titles, a.Title)
	}
	got := strings.Join(titles, "|")
	if strings.Contains(got, "half-listed") || !strings.Contains(got, "Explain with agent") || !strings.Contains(got, "Review file with agent") {
		t.Fatalf("actions: %s", got)
	}
}
