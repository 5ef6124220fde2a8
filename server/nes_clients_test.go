package server_test

import (
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// Next edits for clients that show no copilotInlineEdit: as LSP 3.18
// inline completion items, and as a code action made in the background.

func span(l1, c1, l2, c2 uint32) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
}

func TestNextEditOnTheCursorsLineIsAnInlineCompletionTakingInTheCursor(t *testing.T) {
	const add = "package main\n\nfunc add(x int, y int) int {\n\treturn x + y\n}\n"
	typed := strings.Replace(add, "x int", "x int64", 1)
	srv := llmtest.NewOpenAIServer(t, fenced(strings.ReplaceAll(typed, "y int)", "y int64)")))
	// No completion model: ghost text has nothing, the next edit answers.
	f := nesClient(t, srv, servertest.Caps{UserSettings: true, InlineCompletion: true}, nil)
	u := f.uri("main.go")
	f.editor.Open(u, add)
	f.editor.Type(u, typed)
	items := inline(t, f, u, 2, 16)
	if len(items) != 1 {
		t.Fatalf("items %+v, model calls %d", items, len(srv.Requests()))
	}
	// "64" goes after y's int at 2:23; the cursor is at 2:16, so the item
	// replaces ", y int" with ", y int64".
	it := items[0]
	if *it.Range != span(2, 16, 2, 23) || it.InsertText != ", y int64" || it.FilterText != ", y int" {
		t.Fatalf("item %+v", it)
	}
	if it.Command.Command != server.CommandAcceptInlineEdit {
		t.Fatalf("command %+v", it.Command)
	}
	// Accepted as the client does it: the item's text, then its command.
	f.editor.Type(u, strings.Replace(typed, "y int)", "y int64)", 1))
	var rec struct {
		Recorded bool `json:"recorded"`
	}
	if err := f.editor.Command(it.Command.Command, it.Command.Arguments[0], &rec); err != nil || !rec.Recorded {
		t.Fatalf("%v %+v", err, rec)
	}
	if _, accepted := nesCalls(t, f); accepted != 1 {
		t.Fatalf("accepted %d", accepted)
	}
}

func TestNextEditOnAnotherLineIsAnInlineCompletionOnlyWhereTheClientDrawsIt(t *testing.T) {
	renamed := strings.Replace(greet, "(name", "(fullName", 1)
	for _, tc := range []struct {
		client string
		want   bool
	}{{"", false}, {"Neovim", true}} {
		srv := llmtest.NewOpenAIServer(t, fenced(strings.ReplaceAll(greet, "name", "fullName")))
		f := nesClient(t, srv, servertest.Caps{UserSettings: true, InlineCompletion: true, Name: tc.client}, nil)
		u := f.uri("main.go")
		f.editor.Open(u, greet)
		f.editor.Type(u, renamed)
		items := inline(t, f, u, 2, 19)
		if len(srv.Requests()) != 1 {
			t.Fatalf("%q: %d model calls", tc.client, len(srv.Requests()))
		}
		if !tc.want {
			if len(items) != 0 {
				t.Fatalf("a client that draws items at the cursor got one on another line: %+v", items)
			}
			continue
		}
		if len(items) != 1 || *items[0].Range != span(3, 16, 3, 20) || items[0].InsertText != "fullName" {
			t.Fatalf("%q: items %+v", tc.client, items)
		}
	}
}

func TestACodeActionOnlyClientGetsTheNextEditWithoutAsking(t *testing.T) {
	const target = "personFullName"
	srv := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		return fenced(strings.ReplaceAll(greet, "name", target))
	})
	f := nesClient(t, srv, servertest.Caps{UserSettings: true, NoResourceOperations: true}, map[string]any{"debounceMs": 200})
	u := f.uri("main.go")
	f.editor.Open(u, greet)
	// A burst of keystrokes: the name deleted, the new one typed.
	for k := 0; k <= len(target); k++ {
		f.editor.Type(u, strings.Replace(greet, "(name", "("+target[:k], 1))
		time.Sleep(5 * time.Millisecond)
	}
	var title string
	toolstest.Poll(t, "the suggested edit among line 3's code actions", func() bool {
		if acts := suggestedEditActions(t, f, u, 3); len(acts) > 0 {
			title = acts[0].Title
		}
		return title != ""
	})
	if title != "Apply suggested edit: "+target {
		t.Fatalf("title %q", title)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d keystrokes made %d model calls, want 1", len(target)+1, n)
	}
	if prompt := llmtest.LastUserText(srv.Requests()[0]); !strings.Contains(prompt, "func greet("+target+"<|user_cursor_is_here|> string)") {
		t.Fatalf("the cursor is not at the change's end:\n%s", prompt)
	}
}

func TestAClientThatShowsInlineEditsGetsThemOnlyWhenItAsks(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, fenced(strings.ReplaceAll(greet, "name", "fullName")))
	f := nesClient(t, srv, servertest.Caps{UserSettings: true, InlineCompletion: true, ShowsInlineEdits: true}, nil)
	u := f.uri("main.go")
	f.editor.Open(u, greet)
	renamed := strings.Replace(greet, "(name", "(fullName", 1)
	f.editor.Type(u, renamed)
	if items := inline(t, f, u, 2, 19); len(items) != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("items %+v, %d model calls", items, len(srv.Requests()))
	}
	if res, err := inlineEditAt(f, u, 2, 2, 19); err != nil || len(res.Edits) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
}

// A client may apply a suggestion and never say so (copilot-lsp.nvim),
// say so after its change (ours), or before it (copilot.el): each is one
// acceptance, and only the suggestion is marked as one in the next prompt.
func TestAcceptanceIsKnownFromTheChangeWithOrWithoutTheCommand(t *testing.T) {
	all := strings.ReplaceAll(greet, "name", "fullName")
	for _, order := range []string{"change", "change, command", "command, change"} {
		srv := llmtest.NewOpenAIServer(t, fenced(all), fenced(all))
		f := nesFixture(t, srv, nil)
		u, res, err := renameParam(f)
		if err != nil || len(res.Edits) != 1 {
			t.Fatalf("%s: %v %+v", order, err, res)
		}
		for _, step := range strings.Split(order, ", ") {
			if step == "change" {
				f.editor.Type(u, all)
				continue
			}
			if err := f.editor.Command(server.CommandAcceptInlineEdit, res.Edits[0].Command.Arguments[0], nil); err != nil {
				t.Fatal(err)
			}
		}
		if _, accepted := nesCalls(t, f); accepted != 1 {
			t.Fatalf("%s: accepted %d, want 1", order, accepted)
		}
		if _, err := inlineEditAt(f, u, 3, 3, 0); err != nil {
			t.Fatal(err)
		}
		prompt := llmtest.LastUserText(srv.Requests()[1])
		if strings.Count(prompt, "(a suggestion the user accepted)") != 1 ||
			!strings.Contains(prompt, "(a suggestion the user accepted)\n@@ -4,1 +4,1 @@\n-\treturn \"hi \" + name\n") {
			t.Fatalf("%s: prompt:\n%s", order, prompt)
		}
	}
}

// Models differ on the line breaks before the closing fence: none of them
// is an edit.
func TestNextEditIgnoresTheLineBreaksAtTheRegionsEnd(t *testing.T) {
	all := strings.ReplaceAll(greet, "name", "fullName")
	for _, answer := range []string{all, all + "\n", all + "\n\n", strings.TrimSuffix(all, "\n")} {
		srv := llmtest.NewOpenAIServer(t, fenced(answer))
		f := nesFixture(t, srv, nil)
		_, res, err := renameParam(f)
		if err != nil || len(res.Edits) != 1 || res.Edits[0].Text != "fullName" || res.Edits[0].Range != span(3, 16, 3, 20) {
			t.Fatalf("answer %q: %v %+v", answer, err, res)
		}
		if prompt := llmtest.LastUserText(srv.Requests()[0]); !strings.Contains(prompt, "}\n```") || strings.Contains(prompt, "}\n\n```") {
			t.Fatalf("the region's end in the prompt:\n%s", prompt)
		}
	}
}

// Emacs counts columns in code points: a client offering UTF-32 gets it,
// and an edit after an emoji lands where it counts.
func TestAClientCountingCodePointsGetsUTF32(t *testing.T) {
	text := strings.Replace(greet, `"hi "`, `"hi 😀 "`, 1)
	renamed := strings.Replace(text, "(name", "(fullName", 1)
	all := strings.ReplaceAll(text, "name", "fullName")
	srv := llmtest.NewOpenAIServer(t, fenced(all))
	f := nesClient(t, srv, servertest.Caps{UserSettings: true, ShowsInlineEdits: true, UTF32: true}, nil)
	var status map[string]any
	if err := f.editor.Command(server.CommandStatus, nil, &status); err != nil || status["positionEncoding"] != "utf-32" {
		t.Fatalf("%v %v", status["positionEncoding"], err)
	}
	u := f.uri("main.go")
	f.editor.Open(u, text)
	f.editor.Type(u, renamed)
	res, err := inlineEditAt(f, u, 2, 2, 19)
	// \treturn "hi 😀 " + name: "name" is at code points 18 to 22 (19 to 23 in UTF-16).
	if err != nil || len(res.Edits) != 1 || res.Edits[0].Range != span(3, 18, 3, 22) {
		t.Fatalf("%v %+v", err, res)
	}
	// The action replaces whole lines: a client reading columns as bytes
	// (ALE) applies it right after the emoji too.
	acts := suggestedEditActions(t, f, u, 3)
	if len(acts) != 1 || len(acts[0].Edit.DocumentChanges) != 1 {
		t.Fatalf("actions %+v", acts)
	}
	tde, _ := acts[0].Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if te, _ := tde.Edits[0].(*protocol.TextEdit); te == nil || te.Range != span(3, 0, 4, 0) || te.NewText != "\treturn \"hi 😀 \" + fullName\n" {
		t.Fatalf("edit %+v", tde.Edits[0])
	}
	if err := f.editor.ApplyEdit(*acts[0].Edit); err != nil {
		t.Fatal(err)
	}
	if b, _ := f.editor.Buffer(u); b.Text != all {
		t.Fatalf("buffer %q, want %q", b.Text, all)
	}
}

// The suggestion made in the background after a change never supersedes a
// request the client sent after that change (eglot's first ask).
func TestARequestAfterAChangeSupersedesTheBackgroundSuggestion(t *testing.T) {
	for range 20 {
		srv := llmtest.NewOpenAIResponder(t, func(map[string]any) llmtest.Turn {
			return fenced(strings.ReplaceAll(greet, "name", "fullName"))
		})
		f := nesClient(t, srv, servertest.Caps{UserSettings: true}, nil)
		_, res, err := renameParam(f)
		if err != nil || len(res.Edits) != 1 {
			t.Fatalf("the request after the change: %v %+v", err, res)
		}
	}
}
