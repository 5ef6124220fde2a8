package agentrun_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
)

// recordingApprover answers every question with its decision and keeps
// what it was asked.
type recordingApprover struct {
	decision tools.Decision
	mu       sync.Mutex
	asked    []tools.ApprovalRequest
}

func (a *recordingApprover) Approve(_ context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req)
	return a.decision, nil
}

// TestTheProductStartsLanguageServersInTheSandbox: a wire's Manager starts
// gopls through the sandbox (not a plain process). At level full it
// starts without a question and names the callers an edit broke; below
// full its start is asked first, and refused, the run goes on without it
// and the model is told why. (make test runs this at every level.)
func TestTheProductStartsLanguageServersInTheSandbox(t *testing.T) {
	gopls := langservertest.LookPath(t, "gopls")
	t.Setenv("PATH", filepath.Dir(gopls)+string(os.PathListSeparator)+os.Getenv("PATH"))
	m := agentrun.NewLanguageServers(t.TempDir())
	t.Cleanup(m.Close)
	p := llmtest.NewScripted(
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", editArgs("a/a.go", "func Add(x, y int) int { return x + y }", "func Add(x, y, z int) int { return x + y + z }"))}},
		llmtest.Turn{Text: "Add takes a third operand."},
		llmtest.Turn{Text: "Its callers are left to you."}) // after the run-end check, at level full
	r := request(t, goModule, p)
	r.LSP = m
	approver := &recordingApprover{decision: tools.Deny}
	r.Approver = approver
	if _, err := agentrun.Do(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	result := toolResult(p.Requests(), 0)
	level := tools.SandboxLevel()
	t.Logf("level %s; the edit's result:\n%s", level.Level, result)
	if !level.ServerNeedsApproval() {
		if len(approver.asked) != 0 || !strings.Contains(result, "b/b.go:6:") {
			t.Fatalf("at level full: asked %d times; result %q", len(approver.asked), result)
		}
		return
	}
	if len(approver.asked) == 0 || !strings.Contains(approver.asked[0].Reasons[0], "starts the language server gopls") {
		t.Fatalf("below full the start was not asked: %+v", approver.asked)
	}
	if !strings.Contains(result, "did not allow") || strings.Contains(result, "b/b.go:6:") {
		t.Fatalf("refused, the model must be told and no server consulted: %q", result)
	}
}
