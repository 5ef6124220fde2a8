package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func workspace(t *testing.T, files map[string]string) *tools.Workspace {
	t.Helper()
	w, err := tools.NewWorkspace(toolstest.WriteTree(t, files), nil)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

type recorder struct {
	mu     sync.Mutex
	events []agent.Event
}

func (r *recorder) on(e agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) kinds() []agent.EventKind {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []agent.EventKind
	for _, e := range r.events {
		out = append(out, e.Kind)
	}
	return out
}

func TestSeedScenarioTakesTwoIterations(t *testing.T) {
	w := workspace(t, map[string]string{"hello.py": "def greet():\n    return \"Hello, World!\"\n"})
	provider := llmtest.NewScripted(
		llmtest.Turn{Text: "I will read it.", Calls: []llmtest.Call{{ID: "call_abc123", Name: "read_file", Args: `{"path":"hello.py"}`}}},
		llmtest.Turn{Text: "hello.py defines greet(), which returns \"Hello, World!\"."},
	)
	var rec recorder
	var trace bytes.Buffer
	traceFn := agent.TraceWriter(&trace, provider.Name())
	a := agent.New(agent.Config{
		Provider: provider, Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{}),
		System: "sys", OnEvent: func(e agent.Event) { rec.on(e); traceFn(e) },
	})
	var h agent.History
	out, err := a.Run(context.Background(), &h, "read hello.py and explain it")
	if err != nil {
		t.Fatal(err)
	}
	if out.Iterations != 2 || !strings.Contains(out.Answer, "greet()") {
		t.Fatalf("outcome: %+v", out)
	}
	reqs := provider.Requests()
	second := reqs[1].Messages
	if len(second) != 3 || second[2].Role != llm.RoleTool || second[2].ToolResults[0].CallID != "call_abc123" ||
		!strings.Contains(second[2].ToolResults[0].Content, `return "Hello, World!"`) {
		t.Fatalf("second request: %+v", second)
	}
	if len(reqs[0].Tools) != 6 || reqs[0].System != "sys" {
		t.Fatalf("first request: %d tools, system %q", len(reqs[0].Tools), reqs[0].System)
	}
	want := []agent.EventKind{agent.EventStart, agent.EventIteration, agent.EventUsage, agent.EventThought, agent.EventToolCall,
		agent.EventToolResult, agent.EventIteration, agent.EventUsage, agent.EventThought, agent.EventDone}
	if got := rec.kinds(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	for _, line := range []string{"[AGENT] Iteration 1/10", "[THINK] Tool call: read_file", "[ACT] Executing tool: read_file",
		`[ACT] Input: {"path":"hello.py"}`, "[OBSERVE] Result preview (read_file):", "[AGENT] Iteration 2/10",
		"[THINK] LLM decided to respond without tools - ending loop"} {
		if !strings.Contains(trace.String(), line) {
			t.Errorf("trace lacks %q:\n%s", line, trace.String())
		}
	}
}

func TestIterationCap(t *testing.T) {
	w := workspace(t, map[string]string{"a.txt": "a"})
	var turns []llmtest.Turn
	for i := range 4 {
		turns = append(turns, llmtest.Turn{Calls: []llmtest.Call{{Name: "list_files", Args: fmt.Sprintf(`{"depth":%d}`, i+1)}}})
	}
	provider := llmtest.NewScripted(turns...)
	a := agent.New(agent.Config{Provider: provider, Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{}), MaxIterations: 3})
	var h agent.History
	out, err := a.Run(context.Background(), &h, "loop forever")
	if !errors.Is(err, agent.ErrIterationLimit) || out.Iterations != 3 || !strings.Contains(err.Error(), "after 3 iterations") {
		t.Fatalf("err %v, outcome %+v", err, out)
	}
	if provider.Remaining() != 1 {
		t.Fatalf("the model was called %d times, want 3", 4-provider.Remaining())
	}
}

func TestModelMistakesAreObservations(t *testing.T) {
	w := workspace(t, map[string]string{"a.txt": "alpha\n"})
	provider := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{
			{Name: "delete_repo", Args: `{}`},
			{Name: "read_file", Args: `{"path": 42}`},
			{Name: "read_file", Args: `{"path": "a.txt"`},
		}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
		llmtest.Turn{Text: "done"},
	)
	a := agent.New(agent.Config{Provider: provider, Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{})})
	var h agent.History
	if _, err := a.Run(context.Background(), &h, "go"); err != nil {
		t.Fatal(err)
	}
	results := provider.Requests()[1].Messages[2].ToolResults
	if len(results) != 3 {
		t.Fatalf("results: %+v", results)
	}
	for i, want := range []string{"unknown tool", "invalid arguments", "not valid JSON"} {
		if !results[i].IsError || !strings.Contains(results[i].Content, want) {
			t.Errorf("result %d: %+v, want an error containing %q", i, results[i], want)
		}
	}
	if r := provider.Requests()[2].Messages[4].ToolResults[0]; r.IsError || !strings.Contains(r.Content, "alpha") {
		t.Fatalf("corrected call: %+v", r)
	}
}

type approveAll struct{}

func (approveAll) Approve(context.Context, tools.ApprovalRequest) (tools.Decision, error) {
	return tools.AllowOnce, nil
}

func TestCancellationStopsTheLoopAndKillsTheCommand(t *testing.T) {
	w := workspace(t, nil)
	marker := toolstest.Marker()
	provider := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{{Name: "execute_command", Args: `{"command":"sleep ` + marker + ` & wait"}`}}},
		llmtest.Turn{Text: "never reached"},
	)
	ctx, cancel := context.WithCancel(context.Background())
	a := agent.New(agent.Config{
		Provider: provider, Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), approveAll{}, tools.CommandLimits{}),
		OnEvent: func(e agent.Event) {
			if e.Kind == agent.EventToolCall {
				go func() {
					toolstest.Poll(t, "the command to start", func() bool { return len(toolstest.Alive(marker)) > 0 })
					cancel()
				}()
			}
		},
	})
	var h agent.History
	done := make(chan error)
	go func() {
		_, err := a.Run(ctx, &h, "run something slow")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not stop after cancellation")
	}
	if provider.Remaining() != 1 {
		t.Fatal("the loop went on after cancellation")
	}
	if pids := toolstest.Alive(marker); len(pids) > 0 {
		t.Fatalf("the command outlived the cancellation: %v", pids)
	}
}

// barrierTool blocks until n calls are running at once, proving concurrency
// without timing: run sequentially, it would time out.
type barrierTool struct {
	name    string
	n       int
	mu      sync.Mutex
	running int
	all     chan struct{}
}

func (b *barrierTool) Name() string            { return b.name }
func (b *barrierTool) Description() string     { return "waits for its siblings" }
func (b *barrierTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (b *barrierTool) ReadOnly() bool          { return true }
func (b *barrierTool) Execute(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
	b.mu.Lock()
	b.running++
	if b.running == b.n {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
		return tools.Result{Text: "met"}, nil
	case <-time.After(10 * time.Second):
		return tools.Errorf("ran alone"), nil
	}
}

func TestReadOnlyCallsOfOneTurnRunConcurrently(t *testing.T) {
	bt := &barrierTool{name: "probe", n: 3, all: make(chan struct{})}
	reg, err := tools.NewRegistry(bt)
	if err != nil {
		t.Fatal(err)
	}
	provider := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{{ID: "a", Name: "probe", Args: "{}"}, {ID: "b", Name: "probe", Args: "{}"}, {ID: "c", Name: "probe", Args: "{}"}}},
		llmtest.Turn{Text: "ok"},
	)
	a := agent.New(agent.Config{Provider: provider, Tools: reg})
	var h agent.History
	if _, err := a.Run(context.Background(), &h, "probe"); err != nil {
		t.Fatal(err)
	}
	results := provider.Requests()[1].Messages[2].ToolResults
	for i, id := range []string{"a", "b", "c"} {
		if results[i].CallID != id || results[i].Content != "met" {
			t.Fatalf("result %d: %+v", i, results[i])
		}
	}
}

func TestProviderErrorEndsTheRunWithIt(t *testing.T) {
	boom := &llm.Error{Kind: llm.KindUnauthorized, Provider: "scripted", Message: "bad key"}
	a := agent.New(agent.Config{Provider: llmtest.NewScripted(llmtest.Turn{Err: boom})})
	var h agent.History
	if _, err := a.Run(context.Background(), &h, "hi"); !errors.Is(err, llm.ErrUnauthorized) {
		t.Fatalf("err = %v", err)
	}
}

func TestMaxTokensIsContinued(t *testing.T) {
	provider := llmtest.NewScripted(llmtest.Turn{Text: "first half, ", Finish: "length"}, llmtest.Turn{Text: "second half."})
	a := agent.New(agent.Config{Provider: provider})
	var h agent.History
	out, err := a.Run(context.Background(), &h, "write a lot")
	if err != nil || out.Answer != "first half, second half." {
		t.Fatalf("%+v %v", out, err)
	}
}

func TestSameCallSameResultThreeTimesStops(t *testing.T) {
	w := workspace(t, map[string]string{"a.txt": "a"})
	read := llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}}
	other := llmtest.Turn{Calls: []llmtest.Call{{Name: "list_files", Args: `{}`}}}
	provider := llmtest.NewScripted(read, other, read, other, read, read)
	a := agent.New(agent.Config{Provider: provider, Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{})})
	var h agent.History
	_, err := a.Run(context.Background(), &h, "read")
	if !errors.Is(err, agent.ErrLoop) || !strings.Contains(err.Error(), "Read a.txt gave the same result 3 times") {
		t.Fatalf("err = %v", err)
	}
	if provider.Remaining() != 1 {
		t.Fatalf("stopped after %d model calls, want 5", 6-provider.Remaining())
	}
}

func TestMalformedAnswersAreFedBackUpToALimit(t *testing.T) {
	bad := llmtest.Turn{Text: "I will call read_file now"}
	provider := &formatErrors{inner: llmtest.NewScripted(bad, bad, llmtest.Turn{Text: "fine answer"}, bad, bad, bad)}
	var notices []string
	a := agent.New(agent.Config{Provider: provider, OnEvent: func(e agent.Event) {
		if e.Kind == agent.EventNotice {
			notices = append(notices, e.Text)
		}
	}})
	var h agent.History
	out, err := a.Run(context.Background(), &h, "first")
	if err != nil || out.Answer != "fine answer" || len(notices) != 2 {
		t.Fatalf("two mistakes then a good answer: %+v %v %q", out, err, notices)
	}
	msgs := provider.inner.Requests()[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != llm.RoleUser || !strings.Contains(last.Text, "could not be used: expected a TOOL_CALL line") {
		t.Fatalf("the mistake was not fed back: %+v", last)
	}
	_, err = a.Run(context.Background(), &h, "second")
	if !errors.Is(err, agent.ErrTooManyMistakes) || !strings.Contains(err.Error(), "(3)") {
		t.Fatalf("three in a row: %v", err)
	}
}

// formatErrors marks every answer without "fine" as malformed, as a text
// protocol wrapper would.
type formatErrors struct{ inner *llmtest.Scripted }

func (f *formatErrors) Name() string { return "format-errors" }
func (f *formatErrors) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := f.inner.Chat(ctx, req)
	if err == nil && !strings.Contains(resp.Text, "fine") {
		resp.FormatError = "expected a TOOL_CALL line"
	}
	return resp, err
}

func TestToolCallWithoutToolsIsAnObservation(t *testing.T) {
	provider := llmtest.NewScripted(llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{}`}}}, llmtest.Turn{Text: "ok"})
	var h agent.History
	if _, err := agent.New(agent.Config{Provider: provider}).Run(context.Background(), &h, "x"); err != nil {
		t.Fatal(err)
	}
	if r := provider.Requests()[1].Messages[2].ToolResults[0]; !r.IsError || !strings.Contains(r.Content, "no tools are available") {
		t.Fatalf("%+v", r)
	}
}
