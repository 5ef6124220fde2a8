package tools

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// TestCodeApprovalPerLevel: macOS's default (none), its opt-in Seatbelt and
// Windows (none) ask before workspace code runs, as Linux below full does;
// full alone lets the allowlist's go test run at once. Read-only commands
// run at every level, and the question says the level and why.
func TestCodeApprovalPerLevel(t *testing.T) {
	for _, c := range []struct {
		caps sandbox.Caps
		want string
	}{
		{sandbox.Caps{Level: sandbox.None, Why: "Seatbelt is opt-in until it has run on a Mac in agent-lsp's tests (AGENT_LSP_SANDBOX=seatbelt)"},
			`go test ./... runs code from the workspace, and the sandbox here is "none" (Seatbelt is opt-in`},
		{sandbox.Caps{Level: sandbox.None, Why: "no OS sandbox on windows yet"}, `the sandbox here is "none" (no OS sandbox on windows yet)`},
		{sandbox.Caps{Level: sandbox.Seatbelt}, `go test ./... runs code from the workspace, and the sandbox here is "seatbelt"`},
		{sandbox.Caps{Level: sandbox.Landlock, Why: "no user namespaces here"}, `the sandbox here is "landlock" (no user namespaces here)`},
		{sandbox.Caps{Level: sandbox.Full}, ""},
	} {
		p := NewPolicy(DefaultAllowlist)
		p.SetCodeApproval(codeApproval(c.caps))
		if c.want == "" {
			checkPolicy(t, p, []string{"go test ./...", "ls -la", "git status"}, nil)
			continue
		}
		checkPolicy(t, p, []string{"ls -la", "cat main.go", "git status", "grep -rn foo ."}, map[string]string{
			"go test ./...": c.want,
			"go vet ./...":  "runs code from the workspace",
		})
	}
}
