package resilience_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/llm/openai"
	"github.com/agent-lsp/agent-lsp/llm/resilience"
	"github.com/agent-lsp/agent-lsp/tools"
)

// BenchmarkFlakyProvider runs 200 agent runs (read a file, then answer: two
// model calls each) through the real SDK against a server failing 20 % of
// calls at random with 429 or 503, and reports the share of runs that
// completed and the latency the failures added per run. The backoff base is
// 100 ms instead of 1 s to keep the benchmark short; the added latency scales
// with it.
func BenchmarkFlakyProvider(b *testing.B) {
	root := b.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\n"), 0o644)
	ws, _ := tools.NewWorkspace(root, nil)
	registry := tools.NewDefaultRegistry(ws, tools.NewPolicy(nil), nil, tools.CommandLimits{})
	measure := func(b *testing.B, failRate float64) (completed int, mean time.Duration, retries int64) {
		var mu sync.Mutex
		rng := rand.New(rand.NewPCG(1, 2))
		var failures atomic.Int64
		srv := llmtest.NewOpenAIResponder(b, func(body map[string]any) llmtest.Turn {
			mu.Lock()
			r := rng.Float64()
			mu.Unlock()
			if r < failRate {
				failures.Add(1)
				if r < failRate/2 {
					return llmtest.Turn{Status: 429, Body: `{"error":{"message":"rate limited"}}`}
				}
				return llmtest.Turn{Status: 503, Body: `{"error":{"message":"overloaded"}}`}
			}
			if llmtest.CountRole(body, "tool") == 0 {
				return llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}}
			}
			return llmtest.Turn{Text: "done"}
		})
		base, _ := openai.New(openai.Config{Model: "m", BaseURL: srv.URL + "/v1"})
		breakers := resilience.NewBreakers(resilience.BreakerOptions{Threshold: 1000})
		var total atomic.Int64
		var ok atomic.Int64
		p := pool.New().WithMaxGoroutines(20)
		for range 200 {
			p.Go(func() {
				chain := resilience.Chain(resilience.Options{Breakers: breakers, Retry: resilience.RetryOptions{Base: 100 * time.Millisecond, Max: 800 * time.Millisecond}},
					resilience.Tier{Provider: base})
				a := agent.New(agent.Config{Provider: chain, Tools: registry})
				var h agent.History
				start := time.Now()
				if _, err := a.Run(context.Background(), &h, "read a.txt"); err == nil {
					ok.Add(1)
				}
				total.Add(int64(time.Since(start)))
			})
		}
		p.Wait()
		return int(ok.Load()), time.Duration(total.Load() / 200), failures.Load()
	}
	for b.Loop() {
		_, baseline, _ := measure(b, 0)
		completed, mean, failures := measure(b, 0.2)
		b.ReportMetric(float64(completed)/2, "%completed")
		b.ReportMetric(float64(mean-baseline)/float64(time.Millisecond), "added-ms/run")
		b.ReportMetric(float64(failures), "injected-failures")
	}
}
