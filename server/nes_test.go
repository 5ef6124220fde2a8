package server_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

type inlineEditReply struct {
	Edits []struct {
		Text         string         `json:"text"`
		Range        protocol.Range `json:"range"`
		TextDocument struct {
			URI     uri.URI `json:"uri"`
			Version int32   `json:"version"`
		} `json:"textDocument"`
		Command struct {
			Title     string           `json:"title"`
			Command   string           `json:"command"`
			Arguments []map[string]any `json:"arguments"`
		} `json:"command"`
	} `json:"edits"`
}

func inlineEditAt(f *fixture, u uri.URI, version int32, line, char uint32) (inlineEditReply, error) {
	var res inlineEditReply
	err := f.editor.Call("textDocument/copilotInlineEdit", map[string]any{
		"textDocument": map[string]any{"uri": u, "version": version}, "position": map[string]any{"line": line, "character": char},
	}, &res)
	return res, err
}

// nesFixture has a next-edit model on the chat wire; nes settings are the
// user's own. Its client shows copilotInlineEdit's edits itself, as ours do.
func nesFixture(t *testing.T, srv *llmtest.Server, nes map[string]any) *fixture {
	return nesClient(t, srv, servertest.Caps{UserSettings: true, ShowsInlineEdits: true}, nes)
}

// nesClient is nesFixture with the client's capabilities.
func nesClient(t *testing.T, srv *llmtest.Server, caps servertest.Caps, nes map[string]any) *fixture {
	f := newFixture(t, map[string]string{"main.go": "package main\n"}, srv, nil)
	settings := map[string]any{"model": "nes-chat", "debounceMs": 10}
	for k, v := range nes {
		settings[k] = v
	}
	f.editor.Initialize(f.root, caps, map[string]any{"nes": settings})
	return f
}

// renameParam opens greet, renames its parameter to fullName as a user
// would, and asks for the next edit at the end of the new name.
func renameParam(f *fixture) (uri.URI, inlineEditReply, error) {
	u := f.uri("main.go")
	f.editor.Open(u, greet)
	f.editor.Type(u, strings.Replace(greet, "(name", "(fullName", 1))
	res, err := inlineEditAt(f, u, 2, 2, 19)
	return u, res, err
}

// suggestedEditActions are the "Apply suggested edit" code actions of line.
func suggestedEditActions(t *testing.T, f *fixture, u uri.URI, line uint32) []protocol.CodeAction {
	t.Helper()
	var list []protocol.CodeAction
	err := f.editor.Call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": u},
		"range": span(line, 0, line, 0), "context": map[string]any{"diagnostics": []any{}}}, &list)
	if err != nil {
		t.Fatal(err)
	}
	var out []protocol.CodeAction
	for _, a := range list {
		if strings.HasPrefix(a.Title, "Apply suggested edit") {
			out = append(out, a)
		}
	}
	return out
}

// fenced is a chat model's answer: text in a fenced block.
func fenced(text string) llmtest.Turn {
	return llmtest.Turn{Text: "Here it is:\n```go\n" + text + "```\n"}
}

func nesCalls(t *testing.T, f *fixture) (calls, accepted int) {
	t.Helper()
	var status struct {
		NextEdits struct {
			Calls    int `json:"calls"`
			Accepted int `json:"accepted"`
		} `json:"nextEdits"`
	}
	if err := f.editor.Command(server.CommandStatus, nil, &status); err != nil {
		t.Fatal(err)
	}
	return status.NextEdits.Calls, status.NextEdits.Accepted
}

const greet = "package main\n\nfunc greet(name string) string {\n\treturn \"hi \" + name\n}\n"

func TestNextEditAfterARenameRenamesTheNextUse(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, fenced(strings.ReplaceAll(greet, "name", "fullName")))
	f := nesFixture(t, srv, nil)
	u, res, err := renameParam(f)
	if err != nil || len(res.Edits) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	e := res.Edits[0]
	use := protocol.Range{Start: protocol.Position{Line: 3, Character: 16}, End: protocol.Position{Line: 3, Character: 20}}
	if e.Text != "fullName" || e.Range != use || e.TextDocument.URI != u || e.TextDocument.Version != 2 {
		t.Fatalf("edit %+v, want fullName at %+v", e, use)
	}
	if e.Command.Command != server.CommandAcceptInlineEdit || e.Command.Arguments[0]["version"] != float64(2) {
		t.Fatalf("command %+v", e.Command)
	}
	// What the editors' scripted models read of it (servertest).
	if region, ok := servertest.NextEditRegion(srv.Requests()[0]); !ok || region != strings.Replace(greet, "(name", "(fullName", 1) {
		t.Errorf("servertest.NextEditRegion: %v %q", ok, region)
	}
	prompt := llmtest.LastUserText(srv.Requests()[0])
	for _, want := range []string{
		"@@ -3,1 +3,1 @@\n-func greet(name string) string {\n+func greet(fullName string) string {\n",
		"func greet(fullName<|user_cursor_is_here|> string) string {",
		"3: func greet(fullName string) string {", // the outline
	} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	// Asked again at the same place and version: the cache answers.
	if again, _ := inlineEditAt(f, u, 2, 2, 19); len(again.Edits) != 1 || len(srv.Requests()) != 1 {
		t.Fatalf("again %+v, %d model calls", again, len(srv.Requests()))
	}
}

func TestNextEditAfterAnAddedFieldInZetasFormat(t *testing.T) {
	before := "package main\n\ntype point struct {\n\tx int\n}\n\nfunc newPoint(x int) point {\n\treturn point{x: x}\n}\n"
	after := strings.Replace(before, "\tx int\n", "\tx int\n\ty int\n", 1)
	var prompt string
	srv := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		prompt = llmtest.LastUserText(body)
		region := strings.Replace(after, "point{x: x}", "point{x: x, y: y}", 1)
		return llmtest.Turn{Text: "```main.go\n<|start_of_file|>\n<|editable_region_start|>\n" + strings.TrimSuffix(region, "\n") +
			"\n<|editable_region_end|>\n```"}
	})
	f := nesFixture(t, srv, map[string]any{"model": "zeta-7b"})
	u := f.uri("main.go")
	f.editor.Open(u, before)
	f.editor.Type(u, after)
	res, err := inlineEditAt(f, u, 2, 4, 6)
	if err != nil || len(res.Edits) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	at := protocol.Position{Line: 8, Character: 18}
	if e := res.Edits[0]; e.Text != ", y: y" || e.Range != (protocol.Range{Start: at, End: at}) {
		t.Fatalf("edit %+v", e)
	}
	for _, want := range []string{"### Instruction:\n", "### User Edits:\n\nUser edited \"main.go\":\n```diff\n@@ -5,0 +5,1 @@\n+\ty int\n```",
		"### User Excerpt:\n\n```main.go\n<|start_of_file|>\n<|editable_region_start|>\npackage main\n", "\ty int<|user_cursor_is_here|>\n",
		"<|editable_region_end|>\n```\n\n### Response:\n"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	if sys := srv.Requests()[0]["messages"].([]any)[0].(map[string]any)["role"]; sys != "user" {
		t.Errorf("Zeta's prompt is one user message, not %v", sys)
	}
}

func TestNoNextEditForANoOpAMalformedAnswerOrTheTextBeingTyped(t *testing.T) {
	renamed := strings.Replace(greet, "(name", "(fullName", 1)
	for name, turn := range map[string]llmtest.Turn{
		"no-op":           fenced(renamed),
		"no fenced block": {Text: strings.ReplaceAll(renamed, "name", "fullName")},
		"unclosed fence":  {Text: "```go\n" + renamed},
		// Changes the word the cursor is in: that is the user's to type.
		"the word being typed": fenced(strings.Replace(renamed, "fullName string", "fullNameX string", 1)),
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t, turn)
			f := nesFixture(t, srv, nil)
			_, res, err := renameParam(f)
			if err != nil || len(res.Edits) != 0 || len(srv.Requests()) != 1 {
				t.Fatalf("%v %+v, %d model calls", err, res, len(srv.Requests()))
			}
		})
	}
}

func TestStaleNextEditIsRefused(t *testing.T) {
	renamed := strings.Replace(greet, "(name", "(fullName", 1)
	var f *fixture
	u := uri.URI("")
	srv := llmtest.NewOpenAIResponder(t, func(map[string]any) llmtest.Turn {
		// The user types on while the model thinks.
		f.editor.Type(u, renamed+"\n")
		var ignored any
		_ = f.editor.Command(server.CommandStatus, nil, &ignored) // the change is in
		return fenced(strings.ReplaceAll(greet, "name", "fullName"))
	})
	f = nesFixture(t, srv, nil)
	u = f.uri("main.go")
	f.editor.Open(u, greet)
	f.editor.Type(u, renamed)
	// A request for a version the document has left is not asked at all.
	if res, err := inlineEditAt(f, u, 1, 2, 19); err != nil || len(res.Edits) != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("old version: %v %+v", err, res)
	}
	if res, err := inlineEditAt(f, u, 2, 2, 19); err != nil || len(res.Edits) != 0 || len(srv.Requests()) != 1 {
		t.Fatalf("moved on while asking: %v %+v, %d calls", err, res, len(srv.Requests()))
	}
}

func TestABurstOfKeystrokesMakesOneModelCall(t *testing.T) {
	srv := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		return fenced("package main\n\nvar total = 0\n")
	})
	f := nesFixture(t, srv, map[string]any{"debounceMs": 200})
	u := f.uri("main.go")
	f.editor.Open(u, "package main\n\n")
	var wg sync.WaitGroup
	results := make([]inlineEditReply, 20)
	typed := "package main\n\n"
	for i, c := range "var total = 0 // ok" {
		typed += string(c)
		f.editor.Type(u, typed)
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _ = inlineEditAt(f, u, int32(i+2), 2, uint32(i+1))
		}()
		time.Sleep(5 * time.Millisecond)
	}
	wg.Wait()
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("a burst of %d keystrokes made %d model calls, want 1", len(typed)-14, n)
	}
	if calls, _ := nesCalls(t, f); calls != 1 {
		t.Fatalf("status says %d calls", calls)
	}
}

func TestCancelRequestStopsTheNextEditModelCall(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "never", Delay: servertest.Timeout})
	f := nesFixture(t, srv, nil)
	u := f.uri("main.go")
	f.editor.Open(u, greet)
	cancelAbandonsModelCall(t, f, srv, "textDocument/copilotInlineEdit", map[string]any{
		"textDocument": map[string]any{"uri": u, "version": 1}, "position": map[string]any{"line": 2, "character": 5}})
}

func TestAcceptedNextEditIsRecordedAndOfferedAsACodeAction(t *testing.T) {
	renamed := strings.Replace(greet, "(name", "(fullName", 1)
	srv := llmtest.NewOpenAIServer(t, fenced(strings.ReplaceAll(greet, "name", "fullName")), fenced(strings.ReplaceAll(greet, "name", "fullName")))
	f := newFixture(t, map[string]string{"main.go": "package main\n"}, srv, nil)
	init := f.editor.Initialize(f.root, servertest.Caps{UserSettings: true, ShowsInlineEdits: true}, map[string]any{"nes": map[string]any{"model": "nes-chat", "debounceMs": 10}})
	if !strings.Contains(string(init.Capabilities.Experimental), `"inlineEdit":true`) {
		t.Errorf("capability not declared: %s", init.Capabilities.Experimental)
	}
	u := f.uri("main.go")
	f.editor.Open(u, greet)
	f.editor.Type(u, renamed)
	actions := func(line uint32) []protocol.CodeAction { return suggestedEditActions(t, f, u, line) }
	if len(actions(3)) != 0 || len(srv.Requests()) != 0 {
		t.Fatal("an action before any suggestion, or listing asked the model")
	}
	res, err := inlineEditAt(f, u, 2, 2, 19)
	if err != nil || len(res.Edits) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	acts := actions(3)
	// The edit alone: ALE runs an action's command instead of its edit.
	if len(acts) != 1 || len(actions(0)) != 0 || acts[0].Edit == nil || acts[0].Command.Command != "" {
		t.Fatalf("actions %+v", acts)
	}
	if err := f.editor.ApplyEdit(*acts[0].Edit); err != nil {
		t.Fatal(err)
	}
	b, _ := f.editor.Buffer(u)
	if b.Text != strings.ReplaceAll(greet, "name", "fullName") {
		t.Fatalf("buffer %q", b.Text)
	}
	if _, accepted := nesCalls(t, f); accepted != 1 {
		t.Fatalf("accepted %d", accepted)
	}
	if len(actions(3)) != 0 {
		t.Fatal("the applied suggestion is still offered")
	}
	// The next prompt shows the accepted suggestion as such.
	if _, err := inlineEditAt(f, u, b.Version, 3, 0); err != nil {
		t.Fatal(err)
	}
	if prompt := llmtest.LastUserText(srv.Requests()[1]); !strings.Contains(prompt, "(a suggestion the user accepted)\n@@ -4,1 +4,1 @@\n-\treturn \"hi \" + name\n+\treturn \"hi \" + fullName\n") {
		t.Fatalf("prompt:\n%s", prompt)
	}
}

func TestNextEditBadInput(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	f := nesFixture(t, srv, map[string]any{"languages": []string{"python"}})
	u := f.uri("main.go")
	f.editor.Open(u, greet)
	_, err := inlineEditAt(f, u, 1, 40, 0)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams {
		t.Fatalf("a position outside the document: %v", err)
	}
	// Off for this language ("text", as the fake editor opens it).
	if res, err := inlineEditAt(f, u, 1, 2, 5); err != nil || len(res.Edits) != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("%v %+v", err, res)
	}
	// Not open: none.
	if res, err := inlineEditAt(f, f.uri("other.go"), 1, 0, 0); err != nil || len(res.Edits) != 0 {
		t.Fatalf("%v %+v", err, res)
	}
}

// TestNextEditsPauseAfterRepeatedFailures: a model that keeps failing is
// not asked on every pause in typing: after three failures in a row, next
// edits pause, as completion does, and agent.status says until when.
func TestNextEditsPauseAfterRepeatedFailures(t *testing.T) {
	srv := llmtest.NewOpenAIResponder(t, func(map[string]any) llmtest.Turn {
		return llmtest.Turn{Status: 500, Body: `{"error":{"message":"the model is down"}}`}
	})
	f := nesFixture(t, srv, nil)
	u := f.uri("main.go")
	f.editor.Open(u, greet)
	for char := range uint32(5) {
		if res, err := inlineEditAt(f, u, 1, 2, 5+char); err != nil || len(res.Edits) != 0 {
			t.Fatalf("%v %+v", err, res)
		}
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("the failing model was asked %d times, want 3", n)
	}
	var status struct {
		NextEdits struct {
			PausedUntil string `json:"pausedUntil"`
		} `json:"nextEdits"`
	}
	if err := f.editor.Command(server.CommandStatus, nil, &status); err != nil || status.NextEdits.PausedUntil == "" {
		t.Fatalf("status %+v %v", status, err)
	}
}

// TestNextEditInARegionHoldingAMarkdownFence: the region's own code fence
// neither closes the prompt's block nor the answer's: the prompt's fence is
// longer than any in the region, and the suggestion is the one word the
// model changed, not a deletion of everything after the inner fence.
func TestNextEditInARegionHoldingAMarkdownFence(t *testing.T) {
	const notes = "# Notes\n\nSay hello to name.\n\n```go\nfmt.Println(name)\n```\n\nThen greet name again.\n"
	renamed := strings.Replace(notes, "to name", "to fullName", 1)
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "````markdown\n" + strings.Replace(renamed, "greet name", "greet fullName", 1) + "````\n"})
	f := nesFixture(t, srv, nil)
	u := f.uri("notes.md")
	f.editor.Open(u, notes)
	f.editor.Type(u, renamed)
	res, err := inlineEditAt(f, u, 2, 2, 21)
	if err != nil || len(res.Edits) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	if e := res.Edits[0]; e.Text != "fullName" || e.Range != span(8, 11, 8, 15) {
		t.Fatalf("edit %q at %+v", e.Text, e.Range)
	}
	if prompt := llmtest.LastUserText(srv.Requests()[0]); !strings.Contains(prompt, "Editable region (from line 1):\n````\n# Notes\n") {
		t.Fatalf("prompt:\n%s", prompt)
	}
	if region, ok := servertest.NextEditRegion(srv.Requests()[0]); !ok || region != renamed {
		t.Errorf("servertest.NextEditRegion: %v %q", ok, region)
	}
}
