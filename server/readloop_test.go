package server_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// TestTheReaderGoesOnWhileANewFileIsOffered: a client that shows documents
// but cannot create files applies a proposal with a new file from its code
// action; its didChange settles the proposal, and the server offers the new
// file as a document. Before answering that showDocument, the client asks
// for code actions. Their answer comes while the server still waits for
// showDocument's — so the file is said to be opened — only when the offer
// waits beside the read loop: made from the didChange on the reader, the
// code actions would wait for showDocument's 10 s bound, and the document
// would count as not shown.
func TestTheReaderGoesOnWhileANewFileIsOffered(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{
			call("write_file", `{"path":"a.txt","content":"A\n"}`),
			call("write_file", `{"path":"new.txt","content":"fresh\n"}`),
		}},
		llmtest.Turn{Text: "Done."},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{EditsFromCodeActionsOnly: true, ShowDocument: true, NoResourceOperations: true}, nil)
	u := f.uri("a.txt")
	f.editor.Open(u, "a\n")
	if res := f.ask(map[string]any{"prompt": "upper", "wait": true}); res.State != "completed" {
		t.Fatalf("%+v", res)
	}
	actions := proposalActions(t, f, u)
	if len(actions) == 0 || actions[0].Edit == nil {
		t.Fatalf("no Apply action carrying the edit: %+v", actions)
	}
	answered := make(chan time.Duration, 1)
	f.editor.SetBeforeShow(func(shown uri.URI) {
		if !strings.Contains(string(shown), "new.txt") {
			return
		}
		start := time.Now()
		proposalActions(t, f, u) // a request on the reader while showDocument waits
		answered <- time.Since(start)
	})
	if err := f.editor.ApplyEdit(*actions[0].Edit); err != nil {
		t.Fatal(err)
	}
	f.editor.Wait("the new file offered", func() bool {
		return slices.ContainsFunc(f.editor.Messages(), func(m string) bool { return strings.Contains(m, "new file(s) are not created") })
	})
	offer := f.editor.Messages()[slices.IndexFunc(f.editor.Messages(), func(m string) bool { return strings.Contains(m, "new file(s) are not created") })]
	if !strings.Contains(offer, "new.txt: opened as a document") {
		t.Fatalf("the offer counted the document as not shown (its showDocument was made on the reader):\n%s", offer)
	}
	t.Logf("code actions asked while the server waited for showDocument: answered in %s", <-answered)
	if st := f.proposalState("proposal-1"); st != "applied" {
		t.Fatalf("state %s", st)
	}
}

// TestChangesAreReadInWireOrder: didChange notifications are applied on
// the reader in the order they came, and a request after them sees the
// last: code actions list the instruction comment as typed, key by key.
func TestChangesAreReadInWireOrder(t *testing.T) {
	f := newFixture(t, map[string]string{"a.py": "\n"}, nil, nil)
	f.editor.Initialize(f.root, servertest.Plain, nil)
	u := f.uri("a.py")
	f.editor.Open(u, "\n")
	const line = "# AGENT: rename every variable in this file to snake case"
	for i := 1; i <= len(line); i++ {
		f.editor.Type(u, line[:i]+"\n")
	}
	var titles []string
	for _, a := range codeActions(t, f, map[string]any{"textDocument": map[string]any{"uri": u},
		"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}, "context": map[string]any{"diagnostics": []any{}}}) {
		titles = append(titles, a.Title)
	}
	if !slices.Contains(titles, "Agent: rename every variable in this file to snake case") {
		t.Fatalf("the code actions after the changes: %q", titles)
	}
}
