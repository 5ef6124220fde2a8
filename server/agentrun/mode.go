package agentrun

import (
	"fmt"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
)

// Mode is what a run may do, the same on every wire.
type Mode string

const (
	// ModeAsk answers with the read-only tools: nothing is staged, no
	// command runs, no note is proposed.
	ModeAsk Mode = "ask"
	// ModeCode is the full agent: edits become a proposal, commands run in
	// the sandbox.
	ModeCode Mode = "code"
	// ModePlan makes a plan first and shows it (asking before it runs
	// unless plan_confirm = false), then carries out each step.
	ModePlan Mode = "plan"
)

// ModeInfo is a mode as a client lists it.
type ModeInfo struct {
	Mode        Mode
	Name        string
	Description string
}

// Modes are the modes in the order a client offers them.
var Modes = []ModeInfo{
	{ModeAsk, "Ask", "Read-only: reads, lists and searches the workspace and answers; changes nothing and runs no command"},
	{ModeCode, "Code", "Reads, edits and runs commands in the sandbox; changes are written only when you accept them at the end of the turn"},
	{ModePlan, "Plan", "Makes a plan first and shows it (asking before it runs), then carries out each step; changes are accepted at the end as in Code"},
}

// ParseMode reads a mode's name; "" is DefaultMode's.
func ParseMode(name string) (Mode, error) {
	for _, m := range Modes {
		if string(m.Mode) == name {
			return m.Mode, nil
		}
	}
	if name == "" {
		return "", nil
	}
	return "", fmt.Errorf("unknown mode %q: ask, code or plan", name)
}

// DefaultMode follows the configured strategy: plan when strategy = "plan".
func DefaultMode(s config.Settings) Mode {
	if s.Strategy == string(agent.StrategyPlan) {
		return ModePlan
	}
	return ModeCode
}

// strategy is the strategy a run in mode runs with: plan for plan mode,
// the plain loop for ask, the configured one (react or reflexion) for code.
func strategy(mode Mode, s config.Settings) (agent.Strategy, error) {
	switch mode {
	case ModePlan:
		return agent.StrategyPlan, nil
	case ModeAsk:
		return agent.StrategyReAct, nil
	}
	if s.Strategy == string(agent.StrategyPlan) {
		return agent.StrategyReAct, nil
	}
	return agent.ParseStrategy(s.Strategy)
}
