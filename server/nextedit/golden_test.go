package nextedit

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/documents"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

var update = flag.Bool("update", false, "rewrite the golden prompts and edits in testdata/golden from what the engine does")

// goldenCase is a document typed into, a next edit asked at the cursor (‸
// in after), and the model's answer, testdata/golden/NAME.answer; the
// prompt the engine sent is NAME.prompt, and the edit it made of the answer
// NAME.edit.
type goldenCase struct {
	name          string
	model         string // zeta-… asks in Zeta's format
	before, after string
	// closed, when set, was open at the path first, at the same versions,
	// and typed into the same way (closed typed to closedAfter), then
	// closed: nothing of it may reach the prompt.
	closed, closedAfter string
}

var goldenCases = []goldenCase{
	{name: "markdown-fence", model: "nes-chat",
		before: "# Notes\n\nSay hello to name.\n\n```go\nfmt.Println(name)\n```\n\nThen greet name again.\n",
		after:  "# Notes\n\nSay hello to fullName‸.\n\n```go\nfmt.Println(name)\n```\n\nThen greet name again.\n"},
	{name: "reopened", model: "nes-chat",
		closed: "func old(a int) {\n\tuse(a)\n}\n", closedAfter: "func old(alpha int) {\n\tuse(a)\n}\n",
		before: "func add(x int) int {\n\treturn x + 1\n}\n",
		after:  "func add(count‸ int) int {\n\treturn x + 1\n}\n"},
	{name: "crlf", model: "nes-chat",
		before: "func greet(name string) string {\r\n\treturn \"hi \" + name\r\n}\r\n",
		after:  "func greet(fullName‸ string) string {\r\n\treturn \"hi \" + name\r\n}\r\n"},
	{name: "multibyte-zeta", model: "zeta-7b",
		before: "// 挨拶 😀\nfunc greet(name string) string {\n\treturn \"😀 \" + name\n}\n",
		after:  "// 挨拶 😀\nfunc greet(fullName‸ string) string {\n\treturn \"😀 \" + name\n}\n"},
}

// TestGoldenPromptsAndAnswers runs each case through the engine, over a
// document store and a scripted model, and compares the prompt and the
// edit with the golden files (go test ./server/nextedit -update rewrites
// them; the answers are written by hand).
func TestGoldenPromptsAndAnswers(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "golden")
			answer, err := os.ReadFile(filepath.Join(dir, c.name+".answer"))
			if err != nil {
				t.Fatal(err)
			}
			model := llmtest.NewScripted(llmtest.Turn{Text: string(answer)})
			prompt, edit := runGoldenCase(t, c, model)
			checkGolden(t, filepath.Join(dir, c.name+".prompt"), prompt)
			checkGolden(t, filepath.Join(dir, c.name+".edit"), edit)
		})
	}
}

func runGoldenCase(t *testing.T, c goldenCase, model *llmtest.Scripted) (prompt, edit string) {
	docs := documents.New()
	u := uri.File(filepath.Join(t.TempDir(), "doc.txt"))
	typeIn := func(before, after string) {
		if err := docs.Open(protocol.TextDocumentItem{URI: u, LanguageID: "text", Version: 1, Text: before}); err != nil {
			t.Fatal(err)
		}
		params := &protocol.DidChangeTextDocumentParams{ContentChanges: []protocol.TextDocumentContentChangeEvent{
			&protocol.TextDocumentContentChangeWholeDocument{Text: after}}}
		params.TextDocument.URI, params.TextDocument.Version = u, 2
		if _, err := docs.Change(params, documents.UTF16); err != nil {
			t.Fatal(err)
		}
	}
	if c.closed != "" {
		typeIn(c.closed, c.closedAfter)
		if err := docs.Close(u); err != nil {
			t.Fatal(err)
		}
	}
	cursor := strings.Index(c.after, "‸")
	after := strings.Replace(c.after, "‸", "", 1)
	typeIn(c.before, after)
	engine := New(docs, func(context.Context, config.Settings) (llm.Provider, error) { return model, nil }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	env := Env{Settings: config.Settings{NES: config.NES{Model: c.model, DebounceMS: 1}}, Encoding: documents.UTF16, ShownPath: filepath.Base}
	got, err := engine.Suggest(context.Background(), u, 2, documents.UTF16.Position(after, cursor), env)
	if err != nil || len(model.Requests()) != 1 {
		t.Fatalf("%v, %d model calls", err, len(model.Requests()))
	}
	req := model.Requests()[0]
	prompt = "system:\n" + req.System + "\n"
	for _, m := range req.Messages {
		prompt += "\n" + string(m.Role) + ":\n" + m.Text
	}
	edit = "none\n"
	if got != nil {
		edit = fmt.Sprintf("%d:%d-%d:%d (utf-16) %q\n", got.Range.Start.Line, got.Range.Start.Character, got.Range.End.Line, got.Range.End.Character, got.Text)
	}
	return prompt, edit
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	toolstest.Golden(t, path, got, *update, "go test ./server/nextedit -update")
}
