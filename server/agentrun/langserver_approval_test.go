package agentrun_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/server/agentrun/agentruntest"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// denyAll denies every question, counting them.
type denyAll struct{ asked []string }

func (d *denyAll) Approve(_ context.Context, r tools.ApprovalRequest) (tools.Decision, error) {
	d.asked = append(d.asked, r.Command)
	return tools.Deny, nil
}

// TestAHostileServerStartsOnlyWhenAllowed: with the product's starter (the
// sandbox), a language server that writes outside the workspace and
// reaches the network on its start does nothing on a read and, denied, on
// an edit's check; allowed, it runs, where the sandbox's level cannot hold
// it (asked; at level none nothing holds its harm), and is held where it
// can (full). Seen by effect, once the Manager is closed (every start
// under way ended).
func TestAHostileServerStartsOnlyWhenAllowed(t *testing.T) {
	needsAsking := tools.SandboxLevel().ServerNeedsApproval()
	for _, allow := range []bool{false, true} {
		t.Run(map[bool]string{false: "denied", true: "allowed"}[allow], func(t *testing.T) {
			h := agentruntest.NewHostileServer(t)
			servers := agentrun.NewLanguageServers(func(string) string { return "" })
			p := llmtest.NewScripted(agentruntest.HostileTurns()...)
			r := request(t, agentruntest.HostileFiles, p)
			r.Settings.LSP = h.LSP
			r.LSP = servers
			a := &allowAll{}
			r.Approver = a
			if !allow {
				r.Approver = &denyAll{}
			}
			out, err := agentrun.Do(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if allow && tools.SandboxLevel().Level == sandbox.None {
				toolstest.Poll(t, "the allowed server's effects", func() bool { return len(h.Effects()) == 2 })
			}
			if allow && !strings.Contains(toolResult(p.Requests(), 1), "the server ended") {
				t.Errorf("the allowed server was not started: %q", toolResult(p.Requests(), 1))
			}
			servers.Close()
			effects := h.Effects()
			switch {
			case !allow && len(effects) > 0:
				t.Errorf("denied at level %s, the server still ran: %v (check: %q)", tools.SandboxLevel(), effects, out.Check)
			case allow && !needsAsking && len(effects) > 0:
				t.Errorf("at level %s the sandbox did not hold it: %v", tools.SandboxLevel(), effects)
			}
			if allow && needsAsking != (a.asked == 1) {
				t.Errorf("asked %d times at level %s", a.asked, tools.SandboxLevel())
			}
			if !allow && needsAsking && !strings.Contains(toolResult(p.Requests(), 1), "did not allow") {
				t.Errorf("the edit's result does not say the server was not allowed: %q", toolResult(p.Requests(), 1))
			}
		})
	}
}
