package server

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Answers to the plan question.
const (
	planRun    = "Run plan"
	planCancel = "Cancel"
)

// confirmPlan shows the plan and waits for the user before its steps run:
// Run plan / Cancel through showMessageRequest, or, where the client cannot
// ask (Helix), the "Run the agent's plan" code action (agent.runPlan) or
// cancelling the run. A dismissed question cancels the plan.
func (s *Server) confirmPlan(ctx context.Context, r *run, plan string) (bool, error) {
	params := &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeInfo,
		Message: fmt.Sprintf("agent-lsp: the plan for %q (%s):\n%s", summarize(r.request, 60), r.name(), plan),
		Actions: []protocol.MessageActionItem{{Title: planCancel}, {Title: planRun}}, // the safe answer first: clients preselect it
	}
	// Bounded: past approval_timeout_s the question is left to the code
	// action, as for a client that cannot ask.
	ask, cancel := context.WithTimeoutCause(ctx, s.workspace.settings().ApprovalTimeout(), errNoAnswer)
	choice, err := s.client.ShowMessageRequest(ask, params)
	cancel()
	if err == nil {
		return choice != nil && choice.Title == planRun, nil
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	gate := make(chan bool, 1)
	r.mu.Lock()
	r.planGate = gate
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.planGate = nil
		r.mu.Unlock()
	}()
	r.progress.report(ctx, fmt.Sprintf("Plan ready: run it with %s, or cancel", howTo(s.clientCaps(), "Run the agent's plan", CommandRunPlan, r.name())))
	select {
	case run := <-gate:
		return run, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// runPlan is agent.runPlan: the plan of run id (default: the one waiting)
// goes ahead.
func (s *Server) runPlan(_ context.Context, a idArgs) (runPlanResult, error) {
	r := s.planWaiting(a.ID)
	if r == nil {
		return runPlanResult{}, jsonrpc2.NewError(codeRequestFailed, "no plan is waiting to run")
	}
	r.mu.Lock()
	gate := r.planGate
	r.mu.Unlock()
	if gate == nil {
		return runPlanResult{}, jsonrpc2.NewError(codeRequestFailed, r.name()+"'s plan is not waiting any more")
	}
	select {
	case gate <- true:
	default: // already answered
	}
	return runPlanResult{ID: r.name(), Running: true}, nil
}

// planWaiting is the newest run whose plan waits for the user (called
// name, or any), or nil.
func (s *Server) planWaiting(name string) *run {
	return s.runs.newest(func(r *run) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.planGate != nil && (name == "" || r.name() == name)
	})
}
