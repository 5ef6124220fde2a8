package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools"
)

// extTool is a tool a source found at run time.
type extTool struct {
	name     string
	readOnly bool
	calls    int
}

func (e *extTool) Name() string            { return e.name }
func (e *extTool) Description() string     { return "an external tool" }
func (e *extTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (e *extTool) ReadOnly() bool          { return e.readOnly }
func (e *extTool) Execute(context.Context, json.RawMessage) (tools.Result, error) {
	e.calls++
	return tools.Result{Text: e.name + " ran"}, nil
}

// fakeSource plays one tool list per call, then keeps the last.
type fakeSource struct {
	mu      sync.Mutex
	lists   [][]tools.Tool
	notices []string
	asked   int
}

func (f *fakeSource) Tools(context.Context) ([]tools.Tool, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked++
	ts := f.lists[min(f.asked, len(f.lists))-1]
	n := f.notices
	f.notices = nil
	return ts, n
}

func toolNames(req llm.Request) []string {
	var out []string
	for _, s := range req.Tools {
		out = append(out, s.Name)
	}
	return out
}

func TestASourcesToolsAreOfferedAndFollowItsChanges(t *testing.T) {
	w := workspace(t, map[string]string{"a.txt": "alpha\n"})
	first, later := &extTool{name: "mcp__s__first"}, &extTool{name: "mcp__s__later"}
	shadow := &extTool{name: "read_file"}
	src := &fakeSource{lists: [][]tools.Tool{{first, shadow}, {first, shadow}, {first, later}}, notices: []string{"MCP server s started"}}
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__s__first", Args: `{}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__s__later", Args: `{}`}}},
		llmtest.Turn{Text: "done"},
	)
	var notices []string
	a := agent.New(agent.Config{Provider: p, Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{}), Source: src,
		OnEvent: func(e agent.Event) {
			if e.Kind == agent.EventNotice {
				notices = append(notices, e.Text)
			}
		}})
	var h agent.History
	if out, err := a.Run(context.Background(), &h, "go"); err != nil || out.Answer != "done" {
		t.Fatal(err, out)
	}
	reqs := p.Requests()
	if names := toolNames(reqs[0]); !slices.Contains(names, "mcp__s__first") || slices.Contains(names, "mcp__s__later") || countOf(names, "read_file") != 1 {
		t.Fatalf("first request's tools: %v", names)
	}
	if names := toolNames(reqs[2]); !slices.Contains(names, "mcp__s__later") {
		t.Fatalf("the changed list was not offered: %v", names)
	}
	if first.calls != 1 || later.calls != 1 || shadow.calls != 0 {
		t.Fatalf("calls: first %d later %d shadow %d", first.calls, later.calls, shadow.calls)
	}
	if strings.Join(notices, "\n") != "MCP server s started\ntool read_file left out: a built-in tool has that name" {
		t.Fatalf("notices %q", notices)
	}
}

func TestSubAgentsGetOnlyTheSourcesReadOnlyTools(t *testing.T) {
	w := workspace(t, map[string]string{"a.txt": "alpha\n"})
	ro, rw := &extTool{name: "mcp__s__lookup", readOnly: true}, &extTool{name: "mcp__s__create"}
	src := &fakeSource{lists: [][]tools.Tool{{ro, rw}}}
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{{Name: "delegate", Args: `{"task":"look it up"}`}}},
		llmtest.Turn{Text: "found"}, // the sub-agent
		llmtest.Turn{Text: "done"},
	)
	cfg, err := agent.WithSubAgents(agent.Config{Provider: p, Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{}), Source: src})
	if err != nil {
		t.Fatal(err)
	}
	var h agent.History
	if _, err := agent.New(cfg).Run(context.Background(), &h, "go"); err != nil {
		t.Fatal(err)
	}
	parent, sub := toolNames(p.Requests()[0]), toolNames(p.Requests()[1])
	if !slices.Contains(parent, "mcp__s__create") || !slices.Contains(parent, "mcp__s__lookup") {
		t.Fatalf("parent: %v", parent)
	}
	if slices.Contains(sub, "mcp__s__create") || !slices.Contains(sub, "mcp__s__lookup") || slices.Contains(sub, "write_file") {
		t.Fatalf("sub-agent: %v", sub)
	}
	p2 := llmtest.NewScripted(llmtest.Turn{Text: "ok"})
	cfg.Provider = p2
	if _, err := agent.New(cfg).ReadOnly().Run(context.Background(), &agent.History{}, "q"); err != nil {
		t.Fatal(err)
	}
	if names := toolNames(p2.Requests()[0]); slices.Contains(names, "mcp__s__create") || !slices.Contains(names, "mcp__s__lookup") {
		t.Fatalf("read-only agent: %v", names)
	}
}

func countOf(names []string, name string) int {
	n := 0
	for _, s := range names {
		if s == name {
			n++
		}
	}
	return n
}
