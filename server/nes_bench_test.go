package server_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
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

// BenchmarkTypingInALongLine types 100 keystrokes into a 1 MB one-line file
// (a minified one) through the real binary on stdio, and reports the
// server's peak RSS (VmHWM, read from /proc outside the process) and the
// largest model request. The keystrokes land far apart, so the history
// holds 16 edits, each on the long line. Each waits for the model call it
// makes, as a pause in typing would, so every one builds a prompt:
// nes-off types with next edits off; code-actions is a client that only
// shows code actions (Helix, ALE), for which the server suggests in the
// background after each change; inline-edit asks copilotInlineEdit after
// each keystroke, as our clients do.
func BenchmarkTypingInALongLine(b *testing.B) {
	bin := servertest.Binary(b)
	for _, c := range []struct {
		name      string
		nes, asks bool
	}{{"nes-off", false, false}, {"code-actions", true, false}, {"inline-edit", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			var peak, largest int
			for b.Loop() {
				p, l := typeInALongLine(b, bin, c.nes, c.asks)
				peak, largest = max(peak, p), max(largest, l)
			}
			b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
			b.ReportMetric(float64(largest)/1024, "max-request-KiB")
		})
	}
}

// typeInALongLine is one session of BenchmarkTypingInALongLine: the
// server's peak RSS in kB and its largest model request in bytes.
func typeInALongLine(b *testing.B, bin string, nes, asks bool) (peakKB, largest int) {
	called := make(chan struct{}, 200)
	srv := llmtest.NewOpenAIResponder(b, func(map[string]any) llmtest.Turn {
		called <- struct{}{}
		return llmtest.Turn{Text: "no edit"}
	})
	root, config := b.TempDir(), b.TempDir()
	if nes {
		os.MkdirAll(filepath.Join(config, "agent-lsp"), 0o755)
		os.WriteFile(filepath.Join(config, "agent-lsp", "config.toml"), []byte("[nes]\nmodel = \"nes-chat\"\ndebounce_ms = 1\n"), 0o644)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+config, "XDG_STATE_HOME="+b.TempDir(), "XDG_CACHE_HOME="+b.TempDir(),
		"OPENAI_BASE_URL="+srv.URL+"/v1", "AGENT_LSP_MODEL=gpt-test")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	editor := servertest.Connect(b, func(rwc io.ReadWriteCloser) {
		go io.Copy(stdin, rwc)
		io.Copy(rwc, stdout)
	})
	editor.Initialize(root, servertest.Caps{ShowsInlineEdits: asks, NoResourceOperations: !asks}, nil)
	u := uri.File(filepath.Join(root, "min.js"))
	editor.Open(u, strings.Repeat("a=b;", 256<<10))
	for k := range 100 {
		at := uint32(10_000 + k*9_973)
		version := int32(k + 2)
		editor.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": version},
			"contentChanges": []any{map[string]any{"range": span(0, at, 0, at), "text": "X"}}})
		switch {
		case asks:
			pos := map[string]any{"line": 0, "character": at + 1}
			if err := editor.Call("textDocument/copilotInlineEdit", map[string]any{
				"textDocument": map[string]any{"uri": u, "version": version}, "position": pos}, nil); err != nil {
				b.Fatal(err)
			}
		case nes:
			select {
			case <-called:
			case <-time.After(servertest.Timeout):
				b.Fatalf("keystroke %d made no model call", k)
			}
		default:
			editor.Command(server.CommandStatus, nil, nil) // the change is in
		}
		for _, raw := range srv.RawRequests() {
			largest = max(largest, len(raw))
		}
		srv.Forget()
	}
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "VmHWM:" {
			peakKB, _ = strconv.Atoi(f[1])
		}
	}
	return peakKB, largest
}
