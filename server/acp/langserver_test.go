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

	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{agentruntest.EditCall("a/a.go", "x, y int", "x, y, z int")}},
		llmtest.Turn{Calls: []llmtest.Call{agentruntest.EditCall("b/b.go", "a.Add(1, 1)", "a.Add(1, 1, 0)")}},
		llmtest.Turn{Text: "Add takes z; Two passes 0."})
	f := newFixture(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": "package a\n\nfunc Add(x, y int) int { return x + y }\n",
		"b/b.go": "package b\n\nimport \"example.com/m/a\"\n\nfunc Two() int {\n\treturn a.Add(1, 1)\n}\n",
	}, srv, fixtureOptions{})
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
