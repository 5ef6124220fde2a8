package tools

import (
	"fmt"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// codeApproval is why commands that run the workspace's code ask first at
// this sandbox level (Policy.SetCodeApproval), "" at full: every level
// below it — landlock, seatbelt, and none, which macOS has by default and
// Windows always — asks.
func codeApproval(caps sandbox.Caps) string {
	if caps.Level == sandbox.Full {
		return ""
	}
	if caps.Why == "" {
		return fmt.Sprintf("the sandbox here is %q", caps.Level)
	}
	return fmt.Sprintf("the sandbox here is %q (%s)", caps.Level, caps.Why)
}
