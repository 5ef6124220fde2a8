package completion

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/server/documents"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

var update = flag.Bool("update", false, "rewrite the golden prompts and suggestions in testdata/golden from what the engine does")

// scriptedInfiller answers with its answers in order and records what it
// was asked.
type scriptedInfiller struct {
	mu      sync.Mutex
	answers []string
	asked   []llm.InfillRequest
}

func (s *scriptedInfiller) Name() string { return "scripted" }

func (s *scriptedInfiller) Infill(_ context.Context, req llm.InfillRequest) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, req)
	if len(s.answers) == 0 {
		return "", fmt.Errorf("script exhausted")
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a, nil
}

// goldenCase is a document (the cursor at ‸) and other open documents of
// its language; the model's answer is testdata/golden/NAME.answer, the
// prompt the engine sent NAME.prompt, and the suggestion it made of the
// answer NAME.suggestion.
type goldenCase struct {
	name, language string
	text           string
	others         map[string]string // other open documents, by file name
	// closed, when set, was open at the same path, at the same version,
	// and had a suggestion the reopened text would type through: it must
	// not be answered from it.
	closed, closedAnswer string
}

var goldenCases = []goldenCase{
	{name: "crlf", language: "go", text: "func f() int {\r\n\ttotal := 2\r\n\tret‸\r\n}\r\n"},
	{name: "multibyte", language: "go", text: "// 挨拶 😀\nfunc greet() string {\n\treturn \"😀 \" + na‸\n}\n"},
	{name: "markdown-neighbour", language: "markdown", text: "# Use\n\nCall `gre‸`\n",
		others: map[string]string{"other.md": "# API\n\n```go\ngreet(name)\n```\n"}},
	{name: "reopened", language: "go", closed: "func f() int {\n\tret‸\n}\n", closedAnswer: "urn total",
		text: "func g() int {\n\tretu‸\n}\n"},
}

// TestGoldenPromptsAndSuggestions runs each case through the engine over a
// document store and a scripted model, and compares the prompt and the
// suggestion with the golden files (go test ./server/completion -update
// rewrites them; the answers are written by hand).
func TestGoldenPromptsAndSuggestions(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "golden")
			answer, err := os.ReadFile(filepath.Join(dir, c.name+".answer"))
			if err != nil {
				t.Fatal(err)
			}
			prompt, suggestion := runGoldenCase(t, c, string(answer))
			checkGolden(t, filepath.Join(dir, c.name+".prompt"), prompt)
			checkGolden(t, filepath.Join(dir, c.name+".suggestion"), suggestion)
		})
	}
}

func runGoldenCase(t *testing.T, c goldenCase, answer string) (prompt, suggestion string) {
	root := t.TempDir()
	docs := documents.New()
	open := func(name, text string) uri.URI {
		u := uri.File(filepath.Join(root, name))
		if err := docs.Open(protocol.TextDocumentItem{URI: u, LanguageID: protocol.LanguageKind(c.language), Version: 1, Text: text}); err != nil {
			t.Fatal(err)
		}
		return u
	}
	for name, text := range c.others {
		open(name, text)
	}
	model := &scriptedInfiller{answers: []string{answer}}
	engine := New(docs, func(context.Context, config.Settings) (llm.Infiller, error) { return model, nil }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	env := Env{Settings: config.Settings{Completion: config.Completion{Model: "coder", DebounceMS: 1}}, Encoding: documents.UTF16,
		ShownPath: func(p string) string { rel, _ := filepath.Rel(root, p); return rel },
		CommentSyntax: func(language, _ string) (string, string) {
			if language == "markdown" {
				return "<!--", "-->"
			}
			return "//", ""
		}}
	suggest := func(u uri.URI, text string) At {
		cursor := strings.Index(text, "‸")
		at, err := engine.Suggest(context.Background(), u, documents.UTF16.Position(strings.Replace(text, "‸", "", 1), cursor), env)
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	name := "doc." + map[string]string{"markdown": "md"}[c.language]
	if c.closed != "" {
		model.answers = []string{c.closedAnswer, answer}
		u := open(name, strings.Replace(c.closed, "‸", "", 1))
		if at := suggest(u, c.closed); at.Text != c.closedAnswer {
			t.Fatalf("the closed document's suggestion: %q", at.Text)
		}
		if err := docs.Close(u); err != nil {
			t.Fatal(err)
		}
		engine.Forget(u)
	}
	u := open(name, strings.Replace(c.text, "‸", "", 1))
	at := suggest(u, c.text)
	req := model.asked[len(model.asked)-1]
	prompt = fmt.Sprintf("model calls: %d\n-- prefix --\n%s\n-- suffix --\n%s", len(model.asked), req.Prefix, req.Suffix)
	return prompt, fmt.Sprintf("at %d:%d (utf-16), word %q: %q\n", at.Pos.Line, at.Pos.Character, at.Word, at.Text)
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	toolstest.Golden(t, path, got, *update, "go test ./server/completion -update")
}
