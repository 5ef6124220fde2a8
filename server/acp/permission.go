package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/server/apply"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Permission options. Every question lists the safe answer first, since
// clients may preselect the first.
const (
	optReject      sdk.PermissionOptionId = "reject"
	optAllowOnce   sdk.PermissionOptionId = "allow-once"
	optAllowAlways sdk.PermissionOptionId = "allow-always"
	optApplyAll    sdk.PermissionOptionId = "apply-all" // including the sensitive files
)

// ask sends session/request_permission about the tool call id and returns
// the chosen option; cancelled is true when the turn was cancelled (the
// client answers "cancelled", or the request ends with the turn). Any other
// failure of the client is an error, which callers treat as a refusal.
func (t *turn) ask(id sdk.ToolCallId, title string, kind sdk.ToolKind, content []sdk.ToolCallContent, options []sdk.PermissionOption) (choice sdk.PermissionOptionId, cancelled bool, err error) {
	resp, err := t.a.conn.RequestPermission(t.ctx, sdk.RequestPermissionRequest{
		SessionId: t.s.id,
		ToolCall:  displayableCall(sdk.ToolCallUpdate{ToolCallId: id, Title: &title, Kind: &kind, Status: sdk.Ptr(sdk.ToolCallStatusPending), Content: content}),
		Options:   options,
	})
	switch {
	case t.ctx.Err() != nil:
		return "", true, t.ctx.Err()
	case err != nil:
		return "", false, err
	case resp.Outcome.Cancelled != nil:
		return "", true, nil
	case resp.Outcome.Selected == nil:
		return "", false, errors.New("the client chose no option")
	}
	for _, o := range options {
		if o.OptionId == resp.Outcome.Selected.OptionId {
			return o.OptionId, false, nil
		}
	}
	return "", false, fmt.Errorf("the client chose %q, which was not offered", resp.Outcome.Selected.OptionId)
}

// Approve implements tools.Approver for commands off the allowlist (and
// MCP tools off their allowed list): Deny, Allow once, Always allow in this
// workspace, in that order, about the tool call that asks. A cancelled
// turn, a client that cannot ask or any other answer denies.
func (t *turn) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
	c := t.callAsking(req.Command)
	if c == nil {
		// Nothing shown is asking (a check, say): show what is.
		c = &shownCall{id: t.newCallID("command"), title: "Run " + tools.InlineCode(tools.Printable(req.Command)), kind: sdk.ToolKindExecute}
		t.send(sdk.StartToolCall(c.id, c.title, sdk.WithStartKind(c.kind), sdk.WithStartStatus(sdk.ToolCallStatusPending)))
		defer t.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted)))
	}
	why := "Needs your approval because: " + tools.Printable(strings.Join(req.Reasons, "; "))
	if req.Always != "" {
		why += "\n" + req.Always // escaped already
	}
	if c.kind == sdk.ToolKindExecute {
		why = "Runs in the sandbox (level " + tools.SandboxLevel().String() + ") once you allow it. " + why
	}
	options := []sdk.PermissionOption{
		{OptionId: optReject, Name: "Deny", Kind: sdk.PermissionOptionKindRejectOnce},
		{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: optAllowAlways, Name: "Always allow in this workspace", Kind: sdk.PermissionOptionKindAllowAlways},
	}
	if req.OnceOnly {
		options = options[:2]
	}
	choice, cancelled, err := t.ask(c.id, c.title, c.kind, []sdk.ToolCallContent{textContent(why)}, options)
	switch {
	case cancelled:
		return tools.Deny, ctx.Err()
	case err != nil:
		t.a.log.Warn("acp: could not ask for approval; denied", "command", req.Command, "error", err)
		return tools.Deny, nil
	case choice == optAllowOnce:
		return tools.AllowOnce, nil
	case choice == optAllowAlways:
		return tools.AllowAlways, nil
	}
	return tools.Deny, nil
}

// confirmPlan shows the plan as a tool call and asks before its steps run.
func (t *turn) confirmPlan(ctx context.Context, plan string) (bool, error) {
	id := t.newCallID("plan")
	title := fmt.Sprintf("Run this plan (%d steps)?", strings.Count(strings.TrimSpace(plan), "\n")+1)
	content := []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(plan))}
	t.send(sdk.StartToolCall(id, title, sdk.WithStartKind(sdk.ToolKindThink), sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartContent(content)))
	choice, cancelled, err := t.ask(id, title, sdk.ToolKindThink, content, []sdk.PermissionOption{
		{OptionId: optReject, Name: "Don't run it", Kind: sdk.PermissionOptionKindRejectOnce},
		{OptionId: optAllowOnce, Name: "Run the plan", Kind: sdk.PermissionOptionKindAllowOnce},
	})
	if cancelled {
		return false, ctx.Err()
	}
	if err != nil {
		t.a.log.Warn("acp: could not ask to run the plan; not run", "error", err)
	}
	run := err == nil && choice == optAllowOnce
	status := sdk.ToolCallStatusCompleted
	if !run {
		status = sdk.ToolCallStatusFailed
	}
	t.send(sdk.UpdateToolCall(id, sdk.WithUpdateStatus(status)))
	return run, nil
}

// offer asks the client about the turn's proposal (and the notes the agent
// wants kept) and writes what it accepts. It returns false when the turn
// was cancelled meanwhile; nothing is written then.
func (t *turn) offer(p tools.Proposal, notes *agent.Memory) bool {
	var pending []string
	if notes != nil {
		pending = notes.Pending()
	}
	if p.Empty() && len(pending) == 0 {
		return true
	}
	id := t.newCallID("proposal")
	title, content, locs := describeProposal(p, pending)
	t.send(sdk.StartToolCall(id, title, sdk.WithStartKind(sdk.ToolKindEdit), sdk.WithStartStatus(sdk.ToolCallStatusPending),
		sdk.WithStartContent(content), sdk.WithStartLocations(locs)))
	choice, cancelled, err := t.ask(id, title, sdk.ToolKindEdit, content, proposalOptions(p, pending))
	if cancelled {
		return false
	}
	if err != nil || choice == optReject {
		why := "Rejected: nothing was written."
		if err != nil {
			why = "The client could not be asked (" + err.Error() + "): nothing was written."
		}
		t.send(sdk.UpdateToolCall(id, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed), sdk.WithUpdateContent(append(content, textContent(why)))))
		if !p.Empty() {
			t.s.historyRef().SetAside(agentrun.AsideNotAccepted)
		}
		return true
	}
	changes, _ := apply.Split(p.Changes, choice == optApplyAll)
	report, werr := t.write(changes)
	if werr == nil && notes != nil {
		if n, err := notes.Keep(); err != nil {
			report += "\nThe notes were not kept: " + err.Error()
		} else if n > 0 {
			report += fmt.Sprintf("\nKept %d note(s) for later sessions.", n)
		}
	}
	status := sdk.ToolCallStatusCompleted
	if werr != nil {
		status = sdk.ToolCallStatusFailed
		report = werr.Error()
		t.s.historyRef().SetAside(fmt.Sprintf(agentrun.AsideNotWritten, werr))
	} else if left := len(p.Changes) - len(changes); left > 0 {
		t.s.historyRef().SetAside(fmt.Sprintf(agentrun.AsideAppliedBut, left))
	} else if len(changes) > 0 {
		t.s.historyRef().SetAside(agentrun.AsideApplied)
	}
	t.send(sdk.UpdateToolCall(id, sdk.WithUpdateStatus(status), sdk.WithUpdateContent(append(content, textContent(strings.TrimSpace(report))))))
	return true
}

func textContent(text string) sdk.ToolCallContent { return sdk.ToolContent(sdk.TextBlock(text)) }

// describeProposal shows every file as a diff (the text the agent started
// from, the text it wants), marks the sensitive ones, and lists the notes.
func describeProposal(p tools.Proposal, notes []string) (string, []sdk.ToolCallContent, []sdk.ToolCallLocation) {
	var content []sdk.ToolCallContent
	var locs []sdk.ToolCallLocation
	var warn []string
	for _, c := range p.Changes {
		if c.Existed {
			content = append(content, sdk.ToolDiffContent(c.AbsPath, c.New, c.Original))
		} else {
			content = append(content, sdk.ToolDiffContent(c.AbsPath, c.New))
		}
		locs = append(locs, sdk.ToolCallLocation{Path: c.AbsPath})
		if why, ok := c.Sensitive(); ok {
			warn = append(warn, fmt.Sprintf("⚠ %s changes %s: apply it only if you meant to.", tools.Printable(c.Path), why))
		}
	}
	if len(warn) > 0 {
		content = append(content, textContent(strings.Join(warn, "\n")))
	}
	if n := agent.PendingNotice(notes); n != "" {
		if !p.Empty() {
			n += "\n(Applying the changes keeps these notes too.)"
		}
		content = append(content, textContent(n))
	}
	switch {
	case p.Empty():
		return "Keep the agent's notes?", content, nil
	case len(p.Changes) == 1:
		return "Apply the agent's change to " + tools.Printable(p.Changes[0].Path) + "?", content, locs
	}
	return fmt.Sprintf("Apply the agent's changes to %d files?", len(p.Changes)), content, locs
}

func proposalOptions(p tools.Proposal, notes []string) []sdk.PermissionOption {
	if p.Empty() {
		return []sdk.PermissionOption{
			{OptionId: optReject, Name: "Don't keep", Kind: sdk.PermissionOptionKindRejectOnce},
			{OptionId: optAllowOnce, Name: "Keep the notes", Kind: sdk.PermissionOptionKindAllowOnce},
		}
	}
	options := []sdk.PermissionOption{{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce}}
	sensitive := len(p.Sensitive())
	switch {
	case sensitive == 0:
		options = append(options, sdk.PermissionOption{OptionId: optAllowOnce, Name: "Apply", Kind: sdk.PermissionOptionKindAllowOnce})
	case sensitive < len(p.Changes):
		options = append(options,
			sdk.PermissionOption{OptionId: optAllowOnce, Name: "Apply, leaving out the ⚠ sensitive files", Kind: sdk.PermissionOptionKindAllowOnce},
			sdk.PermissionOption{OptionId: optApplyAll, Name: "Apply all, ⚠ sensitive files included", Kind: sdk.PermissionOptionKindAllowOnce})
	default:
		options = append(options, sdk.PermissionOption{OptionId: optApplyAll, Name: "Apply ⚠ (sensitive files)", Kind: sdk.PermissionOptionKindAllowOnce})
	}
	return options
}
