package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
)

// instantProvider asks for the trivial tool until the last iteration, then
// ends. Each iteration's call differs, as a real run's do (the loop guard
// stops identical repeats).
type instantProvider struct {
	calls, iterations int
	turns             [][]llm.ToolCall
}

func (p *instantProvider) Name() string { return "instant" }
func (p *instantProvider) Chat(_ context.Context, _ llm.Request) (llm.Response, error) {
	p.calls++
	if p.calls%p.iterations == 0 {
		return llm.Response{Text: "done", StopReason: llm.StopEndTurn}, nil
	}
	return llm.Response{ToolCalls: p.turns[p.calls%p.iterations], StopReason: llm.StopToolUse}, nil
}

type noopTool struct{}

func (noopTool) Name() string        { return "noop" }
func (noopTool) Description() string { return "does nothing" }
func (noopTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)
}
func (noopTool) ReadOnly() bool { return true }
func (noopTool) Execute(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{Text: "ok"}, nil
}

// BenchmarkLoopOverhead measures the host side of one THINK/ACT/OBSERVE
// iteration: an instant provider and a trivial tool, so what remains is the
// loop, the history, schema validation and events. Reported per iteration.
func BenchmarkLoopOverhead(b *testing.B) {
	const iterations = 10
	reg, err := tools.NewRegistry(noopTool{})
	if err != nil {
		b.Fatal(err)
	}
	p := &instantProvider{iterations: iterations}
	for i := range iterations {
		p.turns = append(p.turns, []llm.ToolCall{{ID: "c1", Name: "noop", Args: json.RawMessage(fmt.Sprintf(`{"x":"%d"}`, i))}})
	}
	events := 0
	a := agent.New(agent.Config{Provider: p, Tools: reg, MaxIterations: iterations, OnEvent: func(agent.Event) { events++ }})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var h agent.History
		if _, err := a.Run(ctx, &h, "task"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*iterations), "ns/iteration")
}
