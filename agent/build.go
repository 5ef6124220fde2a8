package agent

import (
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
