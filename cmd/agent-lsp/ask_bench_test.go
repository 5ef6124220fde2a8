package main

import (
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// BenchmarkAskToFirstModelRequest runs `agent-lsp ask` as a user does, at
// the machine's sandbox level and at AGENT_LSP_SANDBOX=none, and reports
// the median time from exec to the model's first request.
func BenchmarkAskToFirstModelRequest(b *testing.B) {
	var mu sync.Mutex
	var first time.Time
	srv := llmtest.NewOpenAIResponder(b, func(map[string]any) llmtest.Turn {
		mu.Lock()
		defer mu.Unlock()
		if first.IsZero() {
			first = time.Now()
		}
		return llmtest.Turn{Text: "done"}
	})
	bin := servertest.Binary(b)
	for _, level := range []string{"default", "none"} {
		b.Run(level, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				root := toolstest.WriteTree(b, map[string]string{"a.txt": "a\n"})
				cmd := exec.Command(bin, "ask", "--workspace", root, "hello")
				cmd.Env = append(os.Environ(), "HOME="+b.TempDir(), "XDG_CONFIG_HOME="+b.TempDir(), "XDG_STATE_HOME="+b.TempDir(), "XDG_CACHE_HOME="+b.TempDir(),
					"AGENT_LSP_MODEL=gpt-test", "OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_API_KEY=test")
				if level == "none" {
					cmd.Env = append(cmd.Env, "AGENT_LSP_SANDBOX=none")
				}
				mu.Lock()
				first = time.Time{}
				mu.Unlock()
				start := time.Now()
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
				mu.Lock()
				took = append(took, first.Sub(start))
				mu.Unlock()
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms-to-model")
		})
	}
}
