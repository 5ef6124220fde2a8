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
		Message: fmt.Sprintf("agent-lsp: the plan for %q (%s):\n%s", summarize(r.prompt, 60), r.id, plan),
		Actions: []protocol.MessageActionItem{{Title: planRun}, {Title: planCancel}},
	}
	var choice *protocol.MessageActionItem
	if _, err := s.conn.Call(ctx, "window/showMessageRequest", params, &choice); err == nil {
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
	s.progressReport(ctx, r, fmt.Sprintf("Plan ready: run it with the code action \"Run the agent's plan\" (agent.runPlan %s), or cancel", r.id))
	select {
	case run := <-gate:
		return run, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// runPlan is agent.runPlan: the plan of run id (default: the one waiting)
// goes ahead.
func (s *Server) runPlan(id string) (any, error) {
	r := s.planWaiting(id)
	if r == nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, "no plan is waiting to run")
	}
	r.mu.Lock()
	gate := r.planGate
	r.mu.Unlock()
	if gate == nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, r.id+"'s plan is not waiting any more")
	}
	select {
	case gate <- true:
	default: // already answered
	}
	return map[string]any{"id": r.id, "running": true}, nil
}

// planWaiting is the run whose plan waits for the user (id, or any), or nil.
func (s *Server) planWaiting(id string) *run {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		r.mu.Lock()
		waiting := r.planGate != nil
		r.mu.Unlock()
		if waiting && (id == "" || r.id == id) {
			return r
		}
	}
	return nil
}
