package acp_test

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun/agentruntest"
	"github.com/agent-lsp/agent-lsp/tools"
)

// TestTheLanguageServersCheckEndsTheTurn: through ACP, the edit's result
// names the caller it broke and the turn's last message is the run-end
// check (the answer itself was streamed).
func TestTheLanguageServersCheckEndsTheTurn(t *testing.T) {
	agentruntest.WithGopls(t)

	srv := llmtest.NewOpenAIServer(t, agentruntest.AddThirdOperand()...)
	f := newFixture(t, agentruntest.AddModule, srv, fixtureOptions{})
	s := f.newSession()
	if resp := f.prompt(s.SessionId, sdk.TextBlock("give Add a third operand")); resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %s", resp.StopReason)
	}
	updates, _, _, _ := f.editor.snapshot()
	if text := agentText(updates); !strings.Contains(text, "Language server: no new errors (2 file(s) checked).\n\n"+agentruntest.NoTestTouched) {
		t.Errorf("the turn's text: %q", text)
	}
	second, _ := json.Marshal(srv.Requests()[1]["messages"])
	if !strings.Contains(string(second), "b/b.go:6:") {
		t.Errorf("the edit's result did not name the broken caller: %s", second)
	}
}

// TestAHostileServerIsNeverStartedUnasked: through ACP, with the product's
// starter, a configured server that harms on its start does nothing when
// the run reads its file, nor when the edit's check asks and the user
// rejects; at level full the sandbox holds it. Seen by effect, once the
// connection's end stopped every server.
func TestAHostileServerIsNeverStartedUnasked(t *testing.T) {
	h := agentruntest.NewHostileServer(t)
	srv := llmtest.NewOpenAIServer(t, agentruntest.HostileTurns()...)
	home := t.TempDir()
	agentruntest.WriteUserConfig(t, home, h.Config)
	f := newFixture(t, agentruntest.HostileFiles, srv, fixtureOptions{env: map[string]string{"XDG_CONFIG_HOME": home}})
	f.editor.answer = func(p sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		return sdk.NewRequestPermissionOutcomeSelected(optionOfKind(p, sdk.PermissionOptionKindRejectOnce))
	}
	s := f.newSession()
	if resp := f.prompt(s.SessionId, sdk.TextBlock("change one to two")); resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %s", resp.StopReason)
	}
	f.stop()
	if effects := h.Effects(); len(effects) > 0 {
		t.Errorf("at level %s the server ran: %v", tools.SandboxLevel(), effects)
	}
	if tools.SandboxLevel().ServerNeedsApproval() {
		third, _ := json.Marshal(srv.Requests()[2]["messages"])
		if !strings.Contains(string(third), "did not allow") {
			t.Errorf("the edit's result: %s", third)
		}
	}
}
