package server_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// instantNES answers at once with the editable region of the prompt, one
// use of "value" renamed: a model that costs nothing.
type instantNES struct{}

func (instantNES) Name() string { return "openai:instant" }

func (instantNES) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	prompt := req.Messages[0].Text
	_, region, _ := strings.Cut(prompt, "Editable region")
	_, region, _ = strings.Cut(region, "```\n")
	region, _, _ = strings.Cut(region, "\n```")
	region = strings.Replace(strings.ReplaceAll(region, "<|user_cursor_is_here|>", ""), "use(value)", "use(amount)", 1)
	return llm.Response{Text: "```go\n" + region + "\n```"}, nil
}

// BenchmarkNextEditOverLSP measures textDocument/copilotInlineEdit on the
// LSP wire (in-process pipes, a fake editor) on a 400-line file with a
// model that answers at once: each request follows a keystroke, so none is
// answered from the cache. The debounce is set to 1 ms and taken off; what
// remains is the server's overhead beyond the model: p50 and p99.
func BenchmarkNextEditOverLSP(b *testing.B) {
	root := toolstest.WriteTree(b, map[string]string{"main.go": "package main\n"})
	srv := server.New(server.Options{
		NewNES: func(context.Context, config.Settings) (llm.Provider, error) { return instantNES{}, nil },
		Env: func(k string) string {
			return map[string]string{"XDG_CONFIG_HOME": b.TempDir(), "XDG_STATE_HOME": b.TempDir()}[k]
		},
		CacheDir: b.TempDir(),
	})
	editor := servertest.Connect(b, func(rwc io.ReadWriteCloser) { srv.Serve(context.Background(), rwc) })
	const debounce = time.Millisecond
	editor.Initialize(root, servertest.Caps{UserSettings: true, ShowsInlineEdits: true}, map[string]any{
		"provider": "openai", "model": "agent", "nes": map[string]any{"model": "instant", "debounceMs": 1}})
	var text strings.Builder
	text.WriteString("package main\n\n")
	for i := range 40 {
		fmt.Fprintf(&text, "// f%d does things.\nfunc f%d(value int) int {\n\ttotal := value * %d\n\tuse(value)\n\tuse(value)\n\treturn total\n}\n\n", i, i, i)
	}
	doc := text.String()
	u := uri.File(filepath.Join(root, "main.go"))
	editor.Open(u, doc)
	line := uint32(strings.Count(doc[:strings.Index(doc, "func f20(value")], "\n"))
	var took []time.Duration
	version := int32(1)
	for b.Loop() {
		doc = strings.Replace(doc, "func f20(value", "func f20(xvalue", 1)
		editor.Type(u, doc)
		version++
		var res inlineEditReply
		start := time.Now()
		err := editor.Call("textDocument/copilotInlineEdit", map[string]any{
			"textDocument": map[string]any{"uri": u, "version": version}, "position": map[string]any{"line": line, "character": 9}}, &res)
		took = append(took, time.Since(start)-debounce)
		if err != nil || len(res.Edits) != 1 {
			b.Fatalf("%v %+v", err, res)
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}
