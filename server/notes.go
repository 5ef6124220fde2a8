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

// noteKeeper is the notes of the workspace's folders and what runs
// propose to them.
type noteKeeper struct {
	workspace *workspaceConfig
	runs      *registry
	win       *window
}

// primary is the notes kept for the primary folder.
func (n *noteKeeper) primary() *agent.Memory {
	return n.workspace.primaryMemory()
}

// of is the notes kept for the folder r started in: each folder has its
// own.
func (n *noteKeeper) of(r *run) *agent.Memory {
	if r.folder != nil {
		return r.folder.memory
	}
	return n.primary()
}

// forRun is r's view of its folder's memory, made on first use.
func (n *noteKeeper) forRun(r *run) *agent.Memory {
	memory := n.of(r)
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
	if r.st != runCompleted {
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

// notice is the part of a run's answer that shows its pending notes and
// how to keep them, or "".
func notesNotice(r *run, p *proposal, caps clientCaps) string {
	notice := agent.PendingNotice(r.pendingNotes())
	if notice == "" {
		return ""
	}
	keep := howTo(caps, "Keep the agent's notes", CommandKeepNotes, r.name())
	how := fmt.Sprintf("Nothing is kept yet: keep them with %s.", keep)
	if p != nil {
		how = fmt.Sprintf("They are kept if you apply %s, or with %s.", p.name(), keep)
	}
	return "\n\n" + notice + "\n\n" + how + "\n"
}

// keepApplied keeps r's notes after its proposal was applied.
func (n *noteKeeper) keepApplied(ctx context.Context, r *run) {
	if len(r.pendingNotes()) == 0 {
		return
	}
	if _, err := r.keep(); err != nil {
		n.win.showMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("agent-lsp: the notes of %s were not kept: %v (%s %s retries)", r.name(), err, CommandKeepNotes, r.name()))
	}
}

// keep is agent.keepNotes: id names a run or its proposal; "" the latest
// run with notes waiting.
func (n *noteKeeper) keep(_ context.Context, a idArgs) (keepNotesResult, error) {
	r, err := n.waiting(a.ID)
	if err != nil {
		return keepNotesResult{}, err
	}
	kept, err := r.keep()
	if err != nil {
		return keepNotesResult{}, jsonrpc2.NewError(codeRequestFailed, fmt.Sprintf("the notes of %s were not kept: %v", r.name(), err))
	}
	return keepNotesResult{ID: r.name(), Kept: kept, Notes: n.of(r).Notes()}, nil
}

// waiting is the newest run with notes waiting, called name (or whose
// proposal is), or any for "".
func (n *noteKeeper) waiting(name string) (*run, error) {
	found := n.runs.newest(func(r *run) bool {
		return (name == "" || r.name() == name || r.proposalName() == name) && len(r.pendingNotes()) > 0
	})
	if found != nil {
		return found, nil
	}
	if name == "" {
		return nil, jsonrpc2.NewError(codeRequestFailed, "no run has notes waiting to be kept")
	}
	return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s has no notes waiting to be kept (%s lists them)", name, CommandStatus))
}

// forget is agent.forget: the primary folder's note a.Index (1-based), or
// every note.
func (n *noteKeeper) forget(_ context.Context, a forgetArgs) (notesResult, error) {
	memory := n.primary()
	forgotten, err := memory.Forget(a.Index)
	if err != nil {
		return notesResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	return notesResult{Forgotten: forgotten, Notes: memory.Notes()}, nil
}

// actions offers to keep the notes the agent proposed.
func (n *noteKeeper) actions(l *actionList, _ actionContext) {
	if _, err := n.waiting(""); err == nil {
		l.command("Keep the agent's notes", protocol.CodeActionKindSource, CommandKeepNotes, nil, nil)
	}
}
