package acp_test

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun/agentruntest"
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
	if text := agentText(updates); !strings.HasSuffix(strings.TrimSpace(text), "Language server: no new errors (2 file(s) checked).") {
		t.Errorf("the turn's text: %q", text)
	}
	second, _ := json.Marshal(srv.Requests()[1]["messages"])
	if !strings.Contains(string(second), "b/b.go:6:") {
		t.Errorf("the edit's result did not name the broken caller: %s", second)
	}
}
