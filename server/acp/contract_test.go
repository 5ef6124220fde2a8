package acp_test

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/server/agentrun/agentruntest"
)

// TestRunContract plays the run contract's scenarios through
// session/prompt: the same outcome as the CLI's and the language server's
// (agentruntest). The client declines every proposal, so a second prompt
// follows a discarded one.
func TestRunContract(t *testing.T) {
	agentruntest.Play(t, agentruntest.ACP, acpScenario)
}

func acpScenario(t *testing.T, sc agentruntest.Scenario) agentruntest.Got {
	srv := llmtest.NewOpenAIServer(t, sc.Turns...)
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir()}
	maps.Copy(env, sc.Env)
	agentruntest.WriteUserConfig(t, env["XDG_CONFIG_HOME"], sc.Config)
	f := newFixture(t, agentruntest.Files, srv, fixtureOptions{env: env})
	f.editor.answer = func(p sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		return sdk.NewRequestPermissionOutcomeSelected(optionOfKind(p, sdk.PermissionOptionKindRejectOnce))
	}
	s := f.newSession()
	if sc.Mode != "" {
		if _, err := f.conn.SetSessionMode(f.ctx(), sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: sdk.SessionModeId(sc.Mode)}); err != nil {
			t.Fatal(err)
		}
	}
	if sc.CancelAt > 0 {
		go func() {
			agentruntest.WaitRequests(t, srv, sc.CancelAt)
			f.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: s.SessionId})
		}()
	}
	got := acpTurn(f, s.SessionId, sc.Prompt)
	got.Tools = agentruntest.OfferedTools(srv.Requests()[0])
	if sc.Second == "" {
		return got
	}
	before := len(srv.Requests())
	f.editor.mu.Lock()
	f.editor.updates, f.editor.asked = nil, nil
	f.editor.mu.Unlock()
	second := acpTurn(f, s.SessionId, sc.Second)
	second.Second = llmtest.LastUserText(srv.Requests()[before])
	return second
}

// acpTurn prompts once and reads the outcome as the client sees it.
func acpTurn(f *fixture, id sdk.SessionId, prompt string) agentruntest.Got {
	resp, err := f.conn.Prompt(f.ctx(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(prompt)}})
	updates, asked, _, _ := f.editor.snapshot()
	got := agentruntest.Got{Answer: agentText(updates)}
	for _, a := range asked {
		for _, c := range a.ToolCall.Content {
			if c.Diff != nil {
				rel, _ := filepath.Rel(f.root, c.Diff.Path)
				got.Offered = append(got.Offered, filepath.ToSlash(rel))
			}
		}
	}
	switch {
	case err != nil:
		got.Ending, got.Answer = agentrun.Failed, err.Error()
	case resp.StopReason == sdk.StopReasonCancelled:
		got.Ending = agentrun.Cancelled
	case resp.StopReason == sdk.StopReasonMaxTurnRequests || strings.Contains(got.Answer, "agent-lsp: stopped"):
		got.Ending = agentrun.Stopped
	case resp.StopReason == sdk.StopReasonEndTurn:
		got.Ending = agentrun.Answered
	}
	return got
}
