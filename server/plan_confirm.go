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

// plans holds a run's plan for the user before its steps run.
type plans struct {
	runs      *registry
	win       *window
	workspace *workspaceConfig // the settings: how long a question waits
}

// confirm shows the plan and waits for the user before its steps run:
// Run plan / Cancel through showMessageRequest, or, where the client cannot
// ask (Helix), the "Run the agent's plan" code action (agent.runPlan) or
// cancelling the run. A dismissed question cancels the plan.
func (pl *plans) confirm(ctx context.Context, r *run, plan string) (bool, error) {
	params := &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeInfo,
		Message: fmt.Sprintf("agent-lsp: the plan for %q (%s):\n%s", summarize(r.request, 60), r.name(), plan),
		Actions: []protocol.MessageActionItem{{Title: planCancel}, {Title: planRun}}, // the safe answer first: clients preselect it
	}
	// Bounded: past approval_timeout_s the question is left to the code
	// action, as for a client that cannot ask.
	ask, cancel := context.WithTimeoutCause(ctx, pl.workspace.settings().ApprovalTimeout(), errNoAnswer)
	choice, err := pl.win.client.ShowMessageRequest(ask, params)
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
	r.progress.report(ctx, fmt.Sprintf("Plan ready: run it with %s, or cancel", howTo(pl.win.caps.get(), "Run the agent's plan", CommandRunPlan, r.name())))
	select {
	case run := <-gate:
		return run, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// run is agent.runPlan: the plan of run id (default: the one waiting)
// goes ahead.
func (pl *plans) run(_ context.Context, a idArgs) (runPlanResult, error) {
	r := pl.waiting(a.ID)
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

// waiting is the newest run whose plan waits for the user (called
// name, or any), or nil.
func (pl *plans) waiting(name string) *run {
	return pl.runs.newest(func(r *run) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.planGate != nil && (name == "" || r.name() == name)
	})
}
