package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// What a next edit or a completion costs does not grow with the document,
// and nothing known of a document outlives it.

// TestNextEditRequestInALongLineIsBounded types 16 one-character edits far
// apart in a 512 KiB one-line file (a minified one) and asks for the next
// edit: the model's request stays under 64 KiB in either format, and still
// shows every edit and the cursor.
func TestNextEditRequestInALongLineIsBounded(t *testing.T) {
	for _, model := range []string{"nes-chat", "zeta-7b"} {
		t.Run(model, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "no edit"})
			f := nesFixture(t, srv, map[string]any{"model": model})
			u := f.uri("min.js")
			text := strings.Repeat("a=b;", 128<<10)
			f.editor.Open(u, text)
			at := 0
			for i := range 16 {
				at = 10_000 + i*30_000
				text = text[:at] + "X" + text[at:]
				f.editor.Type(u, text)
			}
			if _, err := inlineEditAt(f, u, 17, 0, uint32(at+1)); err != nil {
				t.Fatal(err)
			}
			raw := srv.RawRequests()
			if len(raw) != 1 {
				t.Fatalf("%d model calls", len(raw))
			}
			t.Logf("request: %d bytes", len(raw[0]))
			if n := len(raw[0]); n > 64<<10 {
				t.Fatalf("the request is %d bytes, more than 64 KiB", n)
			}
			prompt := llmtest.LastUserText(srv.Requests()[0])
			if hunks := strings.Count(prompt, "\n+"); hunks != 16 || !strings.Contains(prompt, "X<|user_cursor_is_here|>") {
				t.Fatalf("%d hunks, or no cursor, in:\n%.3000s", hunks, prompt)
			}
		})
	}
}

// TestAReopenedDocumentGetsNoneOfTheClosedOnesSuggestion closes a document
// with a next edit cached and opens other, shorter text at the same version,
// as a client that restarts versions does: the code actions of its lines
// still list (the cached edit's range is past the new end), and a request at
// the same version and position asks the model again.
func TestAReopenedDocumentGetsNoneOfTheClosedOnesSuggestion(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, fenced(strings.ReplaceAll(greet, "name", "fullName")), llmtest.Turn{Text: "no edit"})
	f := nesFixture(t, srv, nil)
	u, res, err := renameParam(f)
	if err != nil || len(res.Edits) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	f.editor.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
	f.editor.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": u, "languageId": "go", "version": 2, "text": "a\nb\nc\nd long enough for the position\n"}})
	if acts := suggestedEditActions(t, f, u, 3); len(acts) != 0 {
		t.Fatalf("the closed document's suggestion is offered: %+v", acts)
	}
	res, err = inlineEditAt(f, u, 2, 2, 19)
	if err != nil || len(res.Edits) != 0 || len(srv.Requests()) != 2 {
		t.Fatalf("%v %+v, %d model calls", err, res, len(srv.Requests()))
	}
}

// TestAReopenedDocumentGetsNoneOfTheClosedOnesCompletion: typing through a
// suggestion is answered from it only in the document it was made for.
func TestAReopenedDocumentGetsNoneOfTheClosedOnesCompletion(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "urn total"}, llmtest.Turn{Text: "urn 0"})
	f := completionFixture(t, srv, servertest.Caps{InlineCompletion: true}, nil)
	u := f.uri("main.go")
	f.editor.Open(u, "package main\n\nfunc f() int {\n\tret\n}\n")
	if items := inline(t, f, u, 3, 4); len(items) != 1 || items[0].InsertText != "urn total" {
		t.Fatalf("first: %+v", items)
	}
	f.editor.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
	f.editor.Open(u, "package main\n\nfunc g() int {\n\tretur\n}\n")
	if items := inline(t, f, u, 3, 6); len(items) != 1 || items[0].InsertText != "urn 0" || len(srv.Requests()) != 2 {
		t.Fatalf("reopened: %+v, %d model calls", items, len(srv.Requests()))
	}
}

// TestApplySuggestedEditInALongLineIsTheEditItself: in a minified file's
// one long line, "Apply suggested edit" replaces what the suggestion
// changes, not the whole 512 KiB line, and applying it gives the
// suggestion.
func TestApplySuggestedEditInALongLineIsTheEditItself(t *testing.T) {
	srv := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		region, _ := servertest.NextEditRegion(body)
		at := strings.LastIndex(region, "a=b;")
		return llmtest.Turn{Text: "```js\n" + region[:at] + "a=c;" + region[at+4:] + "```\n"}
	})
	f := nesFixture(t, srv, nil)
	u := f.uri("min.js")
	text := strings.Repeat("a=b;", 128<<10)
	f.editor.Open(u, text)
	typed := text[:200_000] + "X" + text[200_000:]
	f.editor.Type(u, typed)
	res, err := inlineEditAt(f, u, 2, 0, 200_001)
	if err != nil || len(res.Edits) != 1 || res.Edits[0].Text != "c" {
		t.Fatalf("%v %+v", err, res)
	}
	// One line of ASCII: a column is a byte offset.
	rng := res.Edits[0].Range
	want := typed[:rng.Start.Character] + "c" + typed[rng.End.Character:]
	acts := suggestedEditActions(t, f, u, 0)
	if len(acts) != 1 || acts[0].Edit == nil {
		t.Fatalf("actions %+v", acts)
	}
	if raw, _ := json.Marshal(acts[0].Edit); len(raw) > 4096 {
		t.Fatalf("the action's edit is %d bytes", len(raw))
	}
	if err := f.editor.ApplyEdit(*acts[0].Edit); err != nil {
		t.Fatal(err)
	}
	b, _ := f.editor.Buffer(u)
	if b.Text != want {
		i := 0
		for i < len(b.Text) && i < len(want) && b.Text[i] == want[i] {
			i++
		}
		t.Fatalf("the buffer differs from the suggestion at byte %d", i)
	}
}
