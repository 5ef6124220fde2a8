package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Answers offered for a command off the allowlist.
const (
	approveDeny   = "Deny"
	approveOnce   = "Allow once"
	approveAlways = "Always allow in this workspace"
)

// approvalActions puts Deny first: clients preselect the first action (Emacs
// eglot) or take it on a hasty Enter, and that must be the safe one.
var approvalActions = []protocol.MessageActionItem{{Title: approveDeny}, {Title: approveOnce}, {Title: approveAlways}}

// editorApprover asks through window/showMessageRequest. A client that cannot
// ask (Helix answers "Method not found"), a dismissed prompt, any error, and
// no answer within timeout (Vim's ALE never answers) mean Deny.
type editorApprover struct {
	s       *Server
	timeout time.Duration // the settings' ApprovalTimeout
}

// errNoAnswer ends a question nobody answered in time.
var errNoAnswer = errors.New("no answer")

func (a editorApprover) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
	// The command comes from the model: escaped, so a newline, an ESC
	// sequence or a bidi override cannot hide or reorder part of it.
	params := &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: fmt.Sprintf("agent-lsp wants to run:\n%s\n(%s)", tools.Printable(req.Command), tools.Printable(strings.Join(req.Reasons, "; "))),
		Actions: approvalActions,
	}
	ask, cancel := context.WithTimeoutCause(ctx, a.timeout, errNoAnswer)
	defer cancel()
	choice, err := a.s.client.ShowMessageRequest(ask, params)
	if err != nil {
		why := fmt.Sprintf("the editor could not ask (%v)", err)
		if ctx.Err() == nil && errors.Is(context.Cause(ask), errNoAnswer) {
			why = fmt.Sprintf("the editor gave no answer within %s (approval_timeout_s)", a.timeout)
		}
		a.s.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("agent-lsp: denied %q: %s", req.Command, why))
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
