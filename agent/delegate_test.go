package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools"
)

// subAgentServer answers the parent with four delegations, then a summary,
// and each sub-agent with one read then its finding; every call takes delay.
func subAgentServer(t testing.TB, delay time.Duration) *llmtest.Server {
	return llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		first := llmtest.FirstUserText(body)
		tools := llmtest.CountRole(body, "tool")
		if strings.HasPrefix(first, "A sub-task") {
			if tools == 0 {
				return llmtest.Turn{Delay: delay, Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}}
			}
			return llmtest.Turn{Delay: delay, Text: "finding for " + first[strings.Index(first, "Task: ")+6:]}
		}
		if tools == 0 {
			var calls []llmtest.Call
			for i := range 4 {
				calls = append(calls, llmtest.Call{ID: fmt.Sprintf("d%d", i), Name: "delegate", Args: fmt.Sprintf(`{"task":"question %d"}`, i)})
			}
			return llmtest.Turn{Calls: calls}
		}
		return llmtest.Turn{Text: "combined the four findings"}
	})
}

func TestSubAgentsRunConcurrentlyAndReportBack(t *testing.T) {
	w := workspace(t, map[string]string{"a.txt": "alpha\n"})
	srv := subAgentServer(t, 0)
	var mu sync.Mutex
	scopes := map[string]bool{}
	cfg, err := agent.WithSubAgents(agent.Config{Provider: wireProvider(t, srv),
		Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{}),
		OnEvent: func(e agent.Event) {
			mu.Lock()
			scopes[e.Scope] = true
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	var h agent.History
	out, err := agent.New(cfg).Run(context.Background(), &h, "answer four questions")
	if err != nil || out.Answer != "combined the four findings" {
		t.Fatalf("%v %+v", err, out)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	for i := range 4 {
		if !strings.Contains(toJSONString(last["messages"]), fmt.Sprintf("finding for question %d", i)) {
			t.Fatalf("finding %d missing from the parent's context", i)
		}
	}
	for i := 1; i <= 4; i++ {
		if !scopes[fmt.Sprintf("sub-agent %d", i)] {
			t.Fatalf("no events nested under sub-agent %d: %v", i, scopes)
		}
	}
	// Sub-agents get read-only tools and no delegate.
	for _, body := range srv.Requests() {
		if strings.HasPrefix(llmtest.FirstUserText(body), "A sub-task") {
			names := toJSONString(body["tools"])
			if strings.Contains(names, `"write_file"`) || strings.Contains(names, `"delegate"`) || strings.Contains(names, `"execute_command"`) {
				t.Fatalf("a sub-agent got %s", names)
			}
		}
	}
}

func TestCancellingTheParentCancelsSubAgents(t *testing.T) {
	w := workspace(t, map[string]string{"a.txt": "alpha\n"})
	srv := subAgentServer(t, servertestTimeout)
	cfg, _ := agent.WithSubAgents(agent.Config{Provider: wireProvider(t, srv), Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{})})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		var h agent.History
		_, err := agent.New(cfg).Run(ctx, &h, "answer")
		done <- err
	}()
	for len(srv.Requests()) < 5 { // the parent's call and the four sub-agents' first calls
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("sub-agents kept the parent running after cancellation")
	}
}

const servertestTimeout = 30 * time.Second

// BenchmarkSubAgents: four sub-agents, two model calls each, 200 ms per call;
// run side by side the wall time is about 0.4 s plus the parent's two calls.
func BenchmarkSubAgents(b *testing.B) {
	root := b.TempDir()
	writeFile(b, root, "a.txt", "alpha\n")
	ws, _ := tools.NewWorkspace(root, nil)
	for b.Loop() {
		srv := subAgentServer(b, 200*time.Millisecond)
		p := wireProvider(b, srv)
		cfg, _ := agent.WithSubAgents(agent.Config{Provider: p, Tools: tools.NewDefaultRegistry(ws, tools.NewPolicy(nil), nil, tools.CommandLimits{})})
		var h agent.History
		start := time.Now()
		if _, err := agent.New(cfg).Run(context.Background(), &h, "answer"); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "wall-s")
	}
}
