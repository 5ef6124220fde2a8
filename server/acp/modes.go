package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
)

// modes are the session's modes (session/set_mode): agentrun's, which
// mean the same on every wire.
var modes = func() []sdk.SessionMode {
	var out []sdk.SessionMode
	for _, m := range agentrun.Modes {
		out = append(out, sdk.SessionMode{Id: sdk.SessionModeId(m.Mode), Name: m.Name, Description: sdk.Ptr(m.Description)})
	}
	return out
}()

// defaultMode follows the configured strategy: plan when strategy = "plan".
func defaultMode(s config.Settings) sdk.SessionModeId {
	return sdk.SessionModeId(agentrun.DefaultMode(s))
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
			a.setMode(s, p.ModeId)
			return resp, nil
		}
	}
	return resp, sdk.NewInvalidParams(map[string]any{"error": "unknown mode " + string(p.ModeId) + ": ask, code or plan"})
}
