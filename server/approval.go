package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Answers offered for a command off the allowlist, in a prompt and as code
// actions alike.
const (
	approveDeny   = "Deny"
	approveOnce   = "Allow once"
	approveAlways = "Always allow in this workspace"
)

// approvalActions puts Deny first: clients preselect the first action (Emacs
// eglot) or take it on a hasty Enter, and that must be the safe one. A
// request that can be allowed once only gets the first two.
var approvalActions = []protocol.MessageActionItem{{Title: approveDeny}, {Title: approveOnce}, {Title: approveAlways}}

// answersTo are the answers offered to req.
func answersTo(req tools.ApprovalRequest) []protocol.MessageActionItem {
	if req.OnceOnly {
		return approvalActions[:2]
	}
	return approvalActions
}

// approvals asks the user whether a run may do what its policy does not
// allow by itself (a command, a language server's start): through
// window/showMessageRequest, and, where the client may not answer one, as
// code actions (the questions waiting) that agent.approve answers.
type approvals struct {
	questions // waiting for a code action's answer
	win       *window
}

// approver asks for the run called run, each question for at most timeout
// (the settings' ApprovalTimeout).
func (ap *approvals) approver(run string, timeout time.Duration) tools.Approver {
	return editorApprover{ap: ap, run: run, timeout: timeout}
}

// editorApprover asks through window/showMessageRequest. A client that did
// not declare it can answer one (window.showMessage.messageActionItem: ALE,
// Helix, eglot 1.9) is also offered the answers as code actions, and told so
// in a message: whichever answer comes first counts. A dismissed prompt, an
// error from a client that declared it can answer, and no answer within
// timeout (approval_timeout_s) mean Deny.
type editorApprover struct {
	ap      *approvals
	run     string        // the asking run's name
	timeout time.Duration // the settings' ApprovalTimeout
}

// errNoAnswer ends a question nobody answered in time.
var errNoAnswer = errors.New("no answer")

func (a editorApprover) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
	// The command comes from the model: escaped, so a newline, an ESC
	// sequence or a bidi override cannot hide or reorder part of it.
	command, reasons := tools.Printable(req.Command), tools.Printable(strings.Join(req.Reasons, "; "))
	if req.Always != "" {
		reasons += "\n" + req.Always // what "Always allow" admits, escaped already
	}
	params := &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: fmt.Sprintf("agent-lsp wants to run:\n%s\n(%s)", command, reasons),
		Actions: answersTo(req),
	}
	ask, cancel := context.WithTimeoutCause(ctx, a.timeout, errNoAnswer)
	defer cancel()
	var picked <-chan tools.Decision // the code actions' answer, where offered
	if !a.ap.win.caps.get().messageActions {
		q := a.ap.add(a.run, req.Command, req.OnceOnly)
		defer a.ap.remove(q)
		picked = q.answer
		var titles []string
		for _, answer := range answersTo(req) {
			titles = append(titles, fmt.Sprintf("%q", answer.Title))
		}
		last := len(titles) - 1
		a.ap.win.showMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
			"agent-lsp: %s wants to run:\n%s\n(%s)\nPick %s or %s from the code actions (on any line), or answer the prompt if your editor shows one. No answer within %s denies it.",
			a.run, command, reasons, strings.Join(titles[:last], ", "), titles[last], a.timeout))
	}
	type reply struct {
		choice *protocol.MessageActionItem
		err    error
	}
	replied := make(chan reply, 1)
	go func() {
		choice, err := a.ap.win.client.ShowMessageRequest(ask, params)
		replied <- reply{choice, err}
	}()
	for {
		select {
		case d := <-picked:
			return d, nil
		case r := <-replied:
			if r.err != nil && picked != nil && ask.Err() == nil {
				replied = nil // it cannot ask (Helix): the code actions still can
				continue
			}
			return a.decision(ctx, ask, req, r.choice, r.err), nil
		case <-ask.Done():
			return a.decision(ctx, ask, req, nil, ask.Err()), nil
		}
	}
}

// decision is what a prompt's answer (or its failure) means.
func (a editorApprover) decision(ctx, ask context.Context, req tools.ApprovalRequest, choice *protocol.MessageActionItem, err error) tools.Decision {
	if err != nil {
		why := fmt.Sprintf("the editor could not ask (%v)", err)
		if ctx.Err() == nil && errors.Is(context.Cause(ask), errNoAnswer) {
			why = fmt.Sprintf("the editor gave no answer within %s (approval_timeout_s)", a.timeout)
		}
		a.ap.win.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("agent-lsp: denied %s: %s", tools.Printable(req.Command), why))
		return tools.Deny
	}
	if choice == nil {
		return tools.Deny
	}
	switch choice.Title {
	case approveOnce:
		return tools.AllowOnce
	case approveAlways:
		return tools.AllowAlways
	}
	return tools.Deny
}

// question is an approval waiting for an answer from the code actions.
type question struct {
	id       string // "approval-N"
	run      string // the asking run's name
	command  string // as the model gave it
	onceOnly bool   // no "Always allow" (tools.ApprovalRequest.OnceOnly)
	answer   chan tools.Decision
}

// questions are the approvals waiting where the client may not answer a
// prompt. mu guards next and waiting.
type questions struct {
	mu      sync.Mutex
	next    int
	waiting []*question
}

func (qs *questions) add(run, command string, onceOnly bool) *question {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	qs.next++
	q := &question{id: fmt.Sprintf("approval-%d", qs.next), run: run, command: command, onceOnly: onceOnly, answer: make(chan tools.Decision, 1)}
	qs.waiting = append(qs.waiting, q)
	return q
}

func (qs *questions) remove(q *question) {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	qs.waiting = slices.DeleteFunc(qs.waiting, func(w *question) bool { return w == q })
}

func (qs *questions) list() []*question {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	return slices.Clone(qs.waiting)
}

// answer gives the waiting question id its decision; a question answered
// already, or gone with its run, is an error the user reads.
func (qs *questions) answer(id string, d tools.Decision) error {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	for _, q := range qs.waiting {
		if q.id == id {
			select {
			case q.answer <- d:
				return nil
			default:
				return fmt.Errorf("%s is answered already", id)
			}
		}
	}
	return fmt.Errorf("no question %s is waiting (it was answered, denied after its time, or its run ended)", id)
}

// approveArgs are agent.approve's arguments.
type approveArgs struct {
	ID       string `json:"id"`
	Decision string `json:"decision"` // once, always or deny
}

type approveResult struct {
	ID       string `json:"id"`
	Decision string `json:"decision"`
}

// approve is agent.approve: the answer to a question, from its code action.
func (ap *approvals) approve(_ context.Context, a approveArgs) (approveResult, error) {
	decisions := map[string]tools.Decision{"once": tools.AllowOnce, "always": tools.AllowAlways, "deny": tools.Deny}
	d, ok := decisions[a.Decision]
	if !ok {
		return approveResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("agent.approve: decision %q: once, always or deny", a.Decision))
	}
	if err := ap.answer(a.ID, d); err != nil {
		return approveResult{}, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: "+err.Error())
	}
	return approveResult(a), nil
}

// actions offers each waiting question's answers, Deny first.
func (ap *approvals) actions(l *actionList) {
	for _, q := range ap.list() {
		shown := summarize(tools.Printable(q.command), 60)
		for _, a := range []struct{ title, decision string }{{approveDeny, "deny"}, {approveOnce, "once"}, {approveAlways, "always"}} {
			if q.onceOnly && a.decision == "always" {
				continue
			}
			l.command(fmt.Sprintf("%s: %s (%s)", a.title, shown, q.run), protocol.CodeActionKindQuickFix, CommandApprove, approveArgs{ID: q.id, Decision: a.decision}, nil)
		}
	}
}
