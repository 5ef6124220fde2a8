package agent

import (
	"context"
	"time"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Setup is what the CLI and the server know when they start a run.
type Setup struct {
	Provider  llm.Provider
	Workspace *tools.Workspace
	Policy    *tools.Policy
	Approver  tools.Approver // nil denies what needs approval
	Limits    tools.CommandLimits
	Memory    *Memory // nil: no remember tool, no notes

	MaxIterations int
	ContextWindow int
	Stream        bool
	OnEvent       func(Event)
}

// Build assembles the agent the same way wherever it runs: the standard
// tools over the workspace, remember when there is a memory, delegate for
// sub-agents, and the system prompt with AGENTS.md and the notes.
func Build(s Setup) (*Agent, error) {
	ts := tools.NewDefaultRegistry(s.Workspace, s.Policy, s.Approver, s.Limits).Tools()
	system := SystemPrompt(s.Workspace.Root(), LoadInstructions(s.Workspace.Root()))
	if s.Memory != nil {
		ts = append(ts, NewRememberTool(s.Memory))
		system += s.Memory.Prompt()
	}
	registry, err := tools.NewRegistry(ts...)
	if err != nil {
		return nil, err
	}
	cfg, err := WithSubAgents(Config{
		Provider: s.Provider, Tools: registry, System: system,
		MaxIterations: s.MaxIterations, ContextWindow: s.ContextWindow, Stream: s.Stream, OnEvent: s.OnEvent,
	})
	if err != nil {
		return nil, err
	}
	return New(cfg), nil
}

// Run is a request to the agent as the CLI and the server start it: the
// parts each supplies (its model chain, view, approver, where events go),
// and the effective settings, which shape the rest the same way for both.
type Run struct {
	Settings  config.Settings // passed Validate
	Provider  llm.Provider
	Workspace *tools.Workspace
	Policy    *tools.Policy
	Approver  tools.Approver
	Memory    *Memory
	Stream    bool
	OnEvent   func(Event)

	Prompt  string
	History *History
	// ConfirmPlan is asked before a plan's steps run; nil runs them.
	ConfirmPlan func(ctx context.Context, plan string) (bool, error)
}

// Prepare builds the agent and the task of r.
func Prepare(r Run) (*Agent, Task, error) {
	s := r.Settings
	a, err := Build(Setup{
		Provider: r.Provider, Workspace: r.Workspace, Policy: r.Policy, Approver: r.Approver, Memory: r.Memory,
		Limits:        tools.CommandLimits{Timeout: time.Duration(s.CommandTimeoutS) * time.Second, MaxOutput: s.MaxOutput},
		MaxIterations: s.MaxIterations, ContextWindow: s.ContextWindow, Stream: r.Stream, OnEvent: r.OnEvent,
	})
	if err != nil {
		return nil, Task{}, err
	}
	strategy, err := ParseStrategy(s.Strategy)
	if err != nil {
		return nil, Task{}, err
	}
	return a, Task{
		Prompt: r.Prompt, Strategy: strategy, History: r.History, Workspace: r.Workspace,
		Checks: s.Checks, MaxTrials: s.MaxTrials, MaxReplans: s.MaxReplans, ConfirmPlan: r.ConfirmPlan,
	}, nil
}
