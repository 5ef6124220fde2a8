package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
)

// The modes a session offers (session/set_mode).
const (
	// modeAsk answers with the read-only tools: nothing is staged, no command runs.
	modeAsk sdk.SessionModeId = "ask"
	// modeCode is the full agent: edits become a proposal, commands run in the sandbox.
	modeCode sdk.SessionModeId = "code"
	// modePlan runs the plan strategy: a plan shown (and confirmed) first, then its steps.
	modePlan sdk.SessionModeId = "plan"
)

var modes = []sdk.SessionMode{
	{Id: modeAsk, Name: "Ask", Description: sdk.Ptr("Read-only: reads, lists and searches the workspace and answers; changes nothing and runs no command")},
	{Id: modeCode, Name: "Code", Description: sdk.Ptr("Reads, edits and runs commands in the sandbox; changes are written only when you accept them at the end of the turn")},
	{Id: modePlan, Name: "Plan", Description: sdk.Ptr("Makes a plan first and shows it (asking before it runs), then carries out each step; changes are accepted at the end as in Code")},
}

// defaultMode follows the configured strategy: plan when strategy = "plan".
func defaultMode(s config.Settings) sdk.SessionModeId {
	if s.Strategy == string(agent.StrategyPlan) {
		return modePlan
	}
	return modeCode
}

// strategyFor is the strategy a turn in mode runs with: plan for plan mode,
// the plain loop for ask, and the configured one (react or reflexion) for code.
func strategyFor(mode sdk.SessionModeId, s config.Settings) string {
	switch mode {
	case modePlan:
		return string(agent.StrategyPlan)
	case modeAsk:
		return string(agent.StrategyReAct)
	}
	if s.Strategy == string(agent.StrategyPlan) {
		return string(agent.StrategyReAct)
	}
	return s.Strategy
}

func (s *session) modeState() *sdk.SessionModeState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &sdk.SessionModeState{AvailableModes: modes, CurrentModeId: s.mode}
}

func (s *session) currentMode() sdk.SessionModeId {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// SetSessionMode switches the mode; the next turn runs in it.
func (a *Agent) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (resp sdk.SetSessionModeResponse, err error) {
	defer guard(a.log, "session/set_mode", &err)
	s, err := a.session(p.SessionId)
	if err != nil {
		return resp, err
	}
	for _, m := range modes {
		if m.Id == p.ModeId {
			s.mu.Lock()
			s.mode = p.ModeId
			s.mu.Unlock()
			return resp, nil
		}
	}
	return resp, sdk.NewInvalidParams(map[string]any{"error": "unknown mode " + string(p.ModeId) + ": ask, code or plan"})
}
