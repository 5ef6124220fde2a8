package server

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/agent"
)

// Notes the model proposes with remember wait in the run's view of the
// memory. They are kept when the user applies the run's proposal, or with
// agent.keepNotes (listed in agent.status) when the run changed no file or
// the user wants the notes without the changes. A failed or cancelled run's
// notes are never offered.

// runNotes is r's view of the memory, made on first use.
func (s *Server) runNotes(r *run) *agent.Memory {
	s.mu.Lock()
	memory := s.memory
	s.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.notes == nil {
		r.notes = memory.ForRun()
	}
	return r.notes
}

// pendingNotes returns what a completed run wants remembered.
func (r *run) pendingNotes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state != runCompleted {
		return nil
	}
	return r.notes.Pending()
}

// keep saves r's pending notes.
func (r *run) keep() (int, error) {
	r.mu.Lock()
	notes := r.notes
	r.mu.Unlock()
	return notes.Keep()
}

// notesNotice is the part of a run's answer that shows its pending notes and
// how to keep them, or "".
func (s *Server) notesNotice(r *run, p *proposal) string {
	notice := agent.PendingNotice(r.pendingNotes())
	if notice == "" {
		return ""
	}
	how := fmt.Sprintf("Nothing is kept yet: keep them with the command `agent.keepNotes %s`.", r.id)
	if p != nil {
		how = fmt.Sprintf("They are kept if you apply %s, or with the command `agent.keepNotes %s`.", p.id, r.id)
	}
	return "\n\n" + notice + "\n\n" + how + "\n"
}

// keepRunNotes keeps the notes of run id after its proposal was applied.
func (s *Server) keepRunNotes(ctx context.Context, id string) {
	s.mu.Lock()
	r := s.runs[id]
	s.mu.Unlock()
	if r == nil || len(r.pendingNotes()) == 0 {
		return
	}
	if _, err := r.keep(); err != nil {
		s.showMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("agent-lsp: the notes of %s were not kept: %v (agent.keepNotes %s retries)", id, err, id))
	}
}

// keepNotes is agent.keepNotes: id names a run or its proposal; "" the latest
// run with notes waiting.
func (s *Server) keepNotes(id string) (any, error) {
	r, err := s.notesRun(id)
	if err != nil {
		return nil, err
	}
	n, err := r.keep()
	if err != nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, fmt.Sprintf("the notes of %s were not kept: %v", r.id, err))
	}
	return map[string]any{"id": r.id, "kept": n, "notes": s.memory.Notes()}, nil
}

func (s *Server) notesRun(id string) (*run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var found *run
	for _, r := range s.runs {
		if (id == "" || r.id == id || r.proposalID == id) && len(r.pendingNotes()) > 0 &&
			(found == nil || idNumber(r.id) > idNumber(found.id)) {
			found = r
		}
	}
	if found != nil {
		return found, nil
	}
	if id == "" {
		return nil, jsonrpc2.NewError(codeRequestFailed, "no run has notes waiting to be kept")
	}
	return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s has no notes waiting to be kept (agent.status lists them)", id))
}
