package agentrun_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestMain(m *testing.M) { toolstest.Main(m) }

// request is a run over a fresh workspace holding files.
func request(t testing.TB, files map[string]string, p llm.Provider) agentrun.Request {
	t.Helper()
	return requestIn(t, toolstest.WriteTree(t, files), p)
}

// requestIn is a run over a fresh view of root.
func requestIn(t testing.TB, root string, p llm.Provider) agentrun.Request {
	t.Helper()
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return agentrun.Request{Provider: p, View: ws, Policy: tools.NewPolicy(nil), History: &agent.History{}, Prompt: "fix it",
		Notes: agent.NewMemory(t.TempDir()).ForRun()}
}

func offered(req llm.Request) []string {
	var names []string
	for _, s := range req.Tools {
		names = append(names, s.Name)
	}
	return names
}

func call(name, args string) llmtest.Call { return llmtest.Call{Name: name, Args: args} }

// TestAModeMeansTheSameOnEveryWire: ask reads and answers and can stage
// nothing, code edits, plan plans first; each wire passes only the mode.
func TestAModeMeansTheSameOnEveryWire(t *testing.T) {
	t.Run("ask", func(t *testing.T) {
		p := llmtest.NewScripted(
			llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"a.go","content":"package b\n"}`)}},
			llmtest.Turn{Text: "a.go declares package a."})
		r := request(t, map[string]string{"a.go": "package a\n"}, p)
		r.Mode = agentrun.ModeAsk
		out, err := agentrun.Do(context.Background(), r)
		if err != nil || out.Answer != "a.go declares package a." || out.Strategy != agent.StrategyReAct {
			t.Fatalf("%+v %v", out, err)
		}
		if !out.Proposal.Empty() {
			t.Fatalf("ask mode staged %v", out.Proposal.Changes)
		}
		first := p.Requests()[0]
		for _, bad := range []string{"write_file", "edit_file", "execute_command", "remember"} {
			if slices.Contains(offered(first), bad) {
				t.Errorf("ask mode offered %s: %v", bad, offered(first))
			}
		}
		if !slices.Contains(offered(first), "read_file") || !slices.Contains(offered(first), agent.PlanToolName) {
			t.Errorf("ask mode cannot read or keep its checklist: %v", offered(first))
		}
		task := first.Messages[0].Text
		if !strings.HasPrefix(task, "(Ask mode:") || agentrun.UserWords(task) != "fix it" {
			t.Errorf("the task %q", task)
		}
	})
	t.Run("code", func(t *testing.T) {
		p := llmtest.NewScripted(
			llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"a.go","content":"package b\n"}`)}},
			llmtest.Turn{Text: "renamed"})
		r := request(t, map[string]string{"a.go": "package a\n"}, p)
		out, err := agentrun.Do(context.Background(), r)
		if err != nil || out.Mode != agentrun.ModeCode || len(out.Proposal.Changes) != 1 || !slices.Contains(offered(p.Requests()[0]), "remember") {
			t.Fatalf("%+v %v, offered %v", out, err, offered(p.Requests()[0]))
		}
		if task := p.Requests()[0].Messages[0].Text; task != "fix it" {
			t.Errorf("the task %q", task)
		}
	})
	t.Run("plan only", func(t *testing.T) {
		p := llmtest.NewScripted(llmtest.Turn{Text: `{"steps": [{"goal": "Rename the package", "done": "a.go says package b"}]}`})
		r := request(t, map[string]string{"a.go": "package a\n"}, p)
		r.Mode, r.PlanOnly = agentrun.ModePlan, true
		ran := false
		r.ConfirmPlan = func(context.Context, string) (bool, error) { ran = true; return true, nil }
		out, err := agentrun.Do(context.Background(), r)
		if err != nil || out.Strategy != agent.StrategyPlan || !strings.Contains(out.Answer, "The plan was not run:") || !strings.Contains(out.Answer, "Rename the package") || ran || p.Remaining() != 0 {
			t.Fatalf("%+v %v (confirm asked: %v)", out, err, ran)
		}
	})
}

// TestTheStrategyComesFromTheSettingsAndTheMode: code runs the configured
// react or reflexion, plan always plans, ask always runs the plain loop.
func TestTheStrategyComesFromTheSettingsAndTheMode(t *testing.T) {
	for _, c := range []struct {
		configured string
		mode       agentrun.Mode
		want       agent.Strategy
	}{
		{"", "", agent.StrategyReAct},
		{"reflexion", "", agent.StrategyReflexion},
		{"plan", "", agent.StrategyPlan},
		{"plan", agentrun.ModeCode, agent.StrategyReAct},
		{"reflexion", agentrun.ModeAsk, agent.StrategyReAct},
		{"", agentrun.ModePlan, agent.StrategyPlan},
	} {
		r := request(t, map[string]string{"a.go": "package a\n"}, llmtest.NewScripted())
		r.Settings, r.Mode = config.Settings{Strategy: c.configured}, c.mode
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // the strategy is chosen before the model is called
		out, _ := agentrun.Do(ctx, r)
		if out.Strategy != c.want {
			t.Errorf("strategy %q in mode %q ran %q, want %q", c.configured, c.mode, out.Strategy, c.want)
		}
	}
	r := request(t, nil, llmtest.NewScripted())
	r.Settings.Strategy = "guess"
	if _, err := agentrun.Do(context.Background(), r); err == nil || !strings.Contains(err.Error(), `unknown strategy "guess"`) {
		t.Fatalf("an unknown strategy: %v", err)
	}
	if _, err := agentrun.ParseMode("write"); err == nil || !strings.Contains(err.Error(), "ask, code or plan") {
		t.Fatalf("an unknown mode: %v", err)
	}
}

// TestTheNextTaskIsToldWhatBecameOfACancelledOrFailedOne: its changes were
// dropped, which the model cannot know from the history alone; a retry
// (Continue) goes on with them, so it is told nothing.
func TestTheNextTaskIsToldWhatBecameOfACancelledOrFailedOne(t *testing.T) {
	boom := errors.New("the provider is down")
	ctx, cancel := context.WithCancel(context.Background())
	p := &cancelling{Scripted: llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"a.go","content":"package b\n"}`)}},
		llmtest.Turn{Text: "next"},
		llmtest.Turn{Err: boom},
		llmtest.Turn{Text: "after the failure"},
		llmtest.Turn{Err: boom},
		llmtest.Turn{Text: "retried"},
	), cancelAfter: 1, cancel: cancel}
	r := request(t, map[string]string{"a.go": "package a\n"}, p)
	if _, err := agentrun.Do(ctx, r); !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled run: %v", err)
	}
	r.Prompt = "go on"
	agentrun.Do(context.Background(), r)
	second := p.Requests()[1].Messages
	task := second[len(second)-1].Text
	if !strings.Contains(task, "the previous turn was cancelled") || agentrun.UserWords(task) != "go on" {
		t.Fatalf("the task after a cancel: %q", task)
	}
	if _, err := agentrun.Do(context.Background(), r); !errors.Is(err, boom) {
		t.Fatalf("the failed run: %v", err)
	}
	if _, err := agentrun.Do(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	fourth := p.Requests()[3].Messages
	if task := fourth[len(fourth)-1].Text; !strings.Contains(task, "the previous turn failed (the provider is down)") {
		t.Fatalf("the task after a failure: %q", task)
	}
	agentrun.Do(context.Background(), r) // fails again
	r.Continue = true
	if out, err := agentrun.Do(context.Background(), r); err != nil || !strings.HasPrefix(out.Answer, "retried\n\nTests: not run:") {
		t.Fatalf("the retry: %+v %v", out, err)
	}
	r.Continue, r.Prompt = false, "and now?"
	p.Scripted = llmtest.NewScripted(llmtest.Turn{Text: "ok"})
	agentrun.Do(context.Background(), r)
	last := p.Requests()[0].Messages
	if task := last[len(last)-1].Text; task != "and now?" {
		t.Fatalf("a retried run still left a word for the next task: %q", task)
	}
}

// cancelling cancels the run once it has answered cancelAfter requests.
type cancelling struct {
	*llmtest.Scripted
	cancelAfter int
	cancel      context.CancelFunc
}

func (c *cancelling) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := c.Scripted.Chat(ctx, req)
	if len(c.Requests()) == c.cancelAfter {
		c.cancel()
	}
	return resp, err
}

func TestThePolicyComesFromTheSettings(t *testing.T) {
	allowed := func(p *tools.Policy, command string) bool {
		reasons, _, err := p.Check(command)
		return err == nil && len(reasons) == 0
	}
	p := agentrun.Policy(config.Settings{Allowlist: []string{"make test"}})
	if !allowed(p, "make test") || !allowed(p, "go test ./...") || allowed(p, "make install") {
		t.Error("the configured list and the built-in one")
	}
	yes := true
	if allowed(agentrun.Policy(config.Settings{Allowlist: []string{"make test"}, NoDefaultAllowlist: &yes}), "go test ./...") {
		t.Error("no_default_allowlist kept the built-in list")
	}
}
