package server_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

type inlineItem struct {
	InsertText string          `json:"insertText"`
	FilterText string          `json:"filterText"`
	Range      *protocol.Range `json:"range"`
	Command    struct {
		Command   string           `json:"command"`
		Arguments []map[string]any `json:"arguments"`
	} `json:"command"`
}

func inline(t *testing.T, f *fixture, u uri.URI, line, char uint32) []inlineItem {
	t.Helper()
	var list struct {
		Items []inlineItem `json:"items"`
	}
	err := f.editor.Call("textDocument/inlineCompletion", map[string]any{
		"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": line, "character": char},
		"context": map[string]any{"triggerKind": 2},
	}, &list)
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// completionFixture has a completion model on the FIM wire, asked with the
// suffix parameter so the test sees prefix and suffix as sent.
func completionFixture(t *testing.T, srv *llmtest.Server, caps servertest.Caps, completion map[string]any) *fixture {
	f := newFixture(t, map[string]string{"main.go": "package main\n"}, srv, map[string]string{"AGENT_LSP_COMPLETION_MODEL": "coder-1b"})
	settings := map[string]any{"fim": "suffix", "debounceMs": 20}
	for k, v := range completion {
		settings[k] = v
	}
	caps.UserSettings = true // the completion settings are the user's own
	f.editor.Initialize(f.root, caps, map[string]any{"completion": settings})
	return f
}

func TestInlineCompletionAtTheRightRange(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "urn \"🐍\" + name\n}\n\nfunc other() {}\n"})
	f := completionFixture(t, srv, servertest.Caps{InlineCompletion: true}, nil)
	u := f.uri("main.go")
	text := "package main\n\nfunc greet(name string) string {\n\t/* 🐍 */ ret\n}\n"
	f.editor.Open(u, text)
	// The cursor after "ret": "\t/* 🐍 */ ret" is 13 UTF-16 units (the
	// snake is two).
	items := inline(t, f, u, 3, 13)
	if len(items) != 1 {
		t.Fatalf("items %+v", items)
	}
	want := protocol.Range{Start: protocol.Position{Line: 3, Character: 13}, End: protocol.Position{Line: 3, Character: 13}}
	// The suggestion stops where the block ends: "}" is there already.
	if items[0].InsertText != "urn \"🐍\" + name" || *items[0].Range != want {
		t.Fatalf("item %q at %+v", items[0].InsertText, items[0].Range)
	}
	req := srv.Requests()[0]
	if !strings.HasSuffix(req["prompt"].(string), "\t/* 🐍 */ ret") || req["suffix"] != "\n}\n" || req["model"] != "coder-1b" {
		t.Fatalf("FIM request %v", req)
	}
}

func TestSupersededCompletionsNeverReachTheModel(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "llo()"})
	f := completionFixture(t, srv, servertest.Caps{InlineCompletion: true}, map[string]any{"debounceMs": 300})
	u := f.uri("main.go")
	f.editor.Open(u, "package main\n\nfunc main() { he }\n")
	var wg sync.WaitGroup
	results := make([][]inlineItem, 5)
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = inline(t, f, u, 2, 16)
		}()
		time.Sleep(10 * time.Millisecond) // keystrokes, well inside the debounce
	}
	wg.Wait()
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("5 requests in a burst made %d model calls, want 1", n)
	}
	got := 0
	for _, r := range results {
		got += len(r)
	}
	if got != 1 {
		t.Fatalf("the burst answered %d suggestions, want only the newest: %+v", got, results)
	}
}

func TestTypingThroughASuggestionIsAnsweredFromTheCache(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "urn total"})
	f := completionFixture(t, srv, servertest.Caps{InlineCompletion: true}, nil)
	u := f.uri("main.go")
	f.editor.Open(u, "package main\n\nfunc f() int {\n\tret\n}\n")
	if items := inline(t, f, u, 3, 4); len(items) != 1 || items[0].InsertText != "urn total" {
		t.Fatalf("first: %+v", items)
	}
	f.editor.Type(u, "package main\n\nfunc f() int {\n\tretur\n}\n")
	items := inline(t, f, u, 3, 6)
	if len(items) != 1 || items[0].InsertText != "n total" || items[0].Range.Start.Character != 6 {
		t.Fatalf("typed through: %+v", items)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("typing what was suggested called the model again (%d calls)", n)
	}
	var status struct {
		Completion struct {
			Model string `json:"model"`
			Calls int    `json:"calls"`
		} `json:"completion"`
	}
	if err := f.editor.Command(server.CommandStatus, nil, &status); err != nil || status.Completion.Calls != 1 || !strings.Contains(status.Completion.Model, "coder-1b") {
		t.Fatalf("status %+v %v", status.Completion, err)
	}
}

func TestSuggestionDoesNotRepeatTheTextAfterTheCursor(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "a, b)"})
	f := completionFixture(t, srv, servertest.Caps{InlineCompletion: true}, nil)
	u := f.uri("main.go")
	f.editor.Open(u, "package main\n\nvar x = add()\n")
	if items := inline(t, f, u, 2, 12); len(items) != 1 || items[0].InsertText != "a, b" {
		t.Fatalf("%+v", items)
	}
}

func TestCompletionIsOffWithoutAModel(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	f := newFixture(t, map[string]string{"main.go": "package main\n"}, srv, nil)
	init := f.editor.Initialize(f.root, servertest.Caps{InlineCompletion: true}, nil)
	if init.Capabilities.CompletionProvider != nil {
		t.Fatal("completion items are offered though nobody turned them on")
	}
	u := f.uri("main.go")
	f.editor.Open(u, "package main\n\nfunc main() { x }\n")
	if items := inline(t, f, u, 2, 15); len(items) != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("items %+v, %d model calls", items, len(srv.Requests()))
	}
	// A client without inline completion is not offered it.
	g := newFixture(t, nil, nil, nil)
	if init := g.editor.Initialize(g.root, servertest.Caps{}, nil); init.Capabilities.InlineCompletionProvider != nil {
		t.Fatalf("inline completion offered to a client without it: %v", init.Capabilities.InlineCompletionProvider)
	}
}

func TestCompletionItemsForClientsWithoutInlineCompletion(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "urn a + b"})
	f := completionFixture(t, srv, servertest.Plain, map[string]any{"items": true})
	u := f.uri("main.go")
	f.editor.Open(u, "package main\n\nfunc add(a, b int) int {\n\tret\n}\n")
	var list struct {
		IsIncomplete bool `json:"isIncomplete"`
		Items        []struct {
			Label    string `json:"label"`
			Kind     int    `json:"kind"`
			Detail   string `json:"detail"`
			SortText string `json:"sortText"`
			TextEdit struct {
				Range   protocol.Range `json:"range"`
				NewText string         `json:"newText"`
			} `json:"textEdit"`
		} `json:"items"`
	}
	err := f.editor.Call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 3, "character": 4}}, &list)
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("%v %+v", err, list)
	}
	item := list.Items[0]
	if item.TextEdit.NewText != "return a + b" || item.TextEdit.Range.Start.Character != 1 || item.TextEdit.Range.End.Character != 4 ||
		item.Kind != 1 || !strings.Contains(item.Detail, "agent-lsp") || !strings.HasPrefix(item.SortText, "~") || !list.IsIncomplete {
		t.Fatalf("item %+v", item)
	}
}

func TestCancelledCompletionStopsTheModelRequest(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "never", Delay: servertest.Timeout})
	f := completionFixture(t, srv, servertest.Caps{InlineCompletion: true}, nil)
	u := f.uri("main.go")
	f.editor.Open(u, "package main\n")
	cancelAbandonsModelCall(t, f, srv, "textDocument/inlineCompletion", map[string]any{
		"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 0, "character": 7}, "context": map[string]any{"triggerKind": 1}})
}

// cancelAbandonsModelCall sends the request, cancels it with
// $/cancelRequest as editors do (its id is 2: initialize was 1) once the
// model is called, and checks the model's HTTP request is abandoned and
// the request answered as cancelled.
func cancelAbandonsModelCall(t *testing.T, f *fixture, srv *llmtest.Server, method string, params map[string]any) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := f.editor.CallCtx(ctx, method, params, nil)
		done <- err
	}()
	toolstest.Poll(t, "the model call", func() bool { return len(srv.Requests()) == 1 })
	f.editor.Notify("$/cancelRequest", map[string]any{"id": 2})
	toolstest.Poll(t, "the model request to be abandoned", func() bool { return srv.Abandoned() == 1 })
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled request answered as if it had not been")
	}
}
