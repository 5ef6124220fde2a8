package server

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Answers offered for a command off the allowlist.
const (
	approveOnce   = "Allow once"
	approveAlways = "Always allow in this workspace"
	approveDeny   = "Deny"
)

// editorApprover asks through window/showMessageRequest. A client that cannot
// ask (Helix answers "Method not found"), a dismissed prompt or any error
// means Deny.
type editorApprover struct{ s *Server }

func (a editorApprover) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
	params := &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: fmt.Sprintf("agent-lsp wants to run:\n%s\n(%s)", req.Command, strings.Join(req.Reasons, "; ")),
		Actions: []protocol.MessageActionItem{{Title: approveOnce}, {Title: approveAlways}, {Title: approveDeny}},
	}
	var choice *protocol.MessageActionItem
	if _, err := a.s.conn.Call(ctx, "window/showMessageRequest", params, &choice); err != nil {
		a.s.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("agent-lsp: denied %q: the editor could not ask (%v)", req.Command, err))
		return tools.Deny, nil
	}
	if choice == nil {
		return tools.Deny, nil
	}
	switch choice.Title {
	case approveOnce:
		return tools.AllowOnce, nil
	case approveAlways:
		return tools.AllowAlways, nil
	}
	return tools.Deny, nil
}
