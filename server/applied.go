package server

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/server/apply"
	"github.com/agent-lsp/agent-lsp/tools"
)

// A client without workspace/applyEdit (ALE says so) applies a proposal
// from a code action that carries its edit, and never tells the server;
// a client that takes applyEdit may never answer it (ALE again, were it
// sent). Either way the server sees the result: the editor's buffers hold
// the proposal's text. That is when it is applied.

// applyActions offers p as code actions carrying its edit, for a client
// that cannot take workspace/applyEdit: its files without the sensitive
// ones, and, as a second action naming them, with them.
func (s *Server) applyActions(l *actionList, p *proposal, caps clientCaps, kind protocol.CodeActionKind) {
	rest, sensitive := apply.Split(p.changes, false)
	if len(rest) > 0 {
		// Counted as the edit carries them: new files the client cannot
		// create are offered once it is applied.
		if edit, newFiles, err := s.editOf(p, rest, caps); err == nil && !editsNothing(edit) {
			title := fmt.Sprintf("Apply agent proposal (%d file(s), %s)", len(rest)-len(newFiles), p.name())
			if len(newFiles) > 0 && newFilesInBuffers(caps) {
				title = fmt.Sprintf("Apply agent proposal (%d file(s), %s; %d new file(s) in buffers, not created until you write them)", len(rest)-len(newFiles), p.name(), len(newFiles))
			}
			l.edit(title, kind, edit)
		}
	}
	if len(sensitive) > 0 {
		if edit, _, err := s.editOf(p, p.changes, caps); err == nil && !editsNothing(edit) {
			l.edit(fmt.Sprintf("Apply agent proposal with its sensitive files (%s): %s", p.name(), apply.DescribeSensitive(sensitive)), kind, edit)
		}
	}
}

// heldByEditor reports whether the editor (its buffers, or the disk for a
// file not open) holds p as proposed: every file the client could be sent
// has the proposed text, except sensitive files left as they were, and at
// least one file changed.
func (s *Server) heldByEditor(p *proposal, caps clientCaps) bool {
	canCreate := caps.documentChanges && caps.createFiles
	held := 0
	for _, c := range p.changes {
		if !c.Existed && !canCreate {
			continue // offered another way (offerNewFiles)
		}
		text, _, exists, err := s.currentText(c.AbsPath)
		switch {
		case err != nil:
			return false
		case exists && text == c.New:
			held++
		case c.Existed && exists && text == c.Original && isSensitive(c):
			// left out, as the action without sensitive files does
		default:
			return false
		}
	}
	return held > 0
}

// untouchedByEditor reports whether the editor holds every file of p that
// the client could be sent as it was before p: nothing of p was applied.
func (s *Server) untouchedByEditor(p *proposal, caps clientCaps) bool {
	canCreate := caps.documentChanges && caps.createFiles
	for _, c := range p.changes {
		if !c.Existed && !canCreate {
			continue
		}
		text, _, exists, err := s.currentText(c.AbsPath)
		switch {
		case err != nil:
			return false
		case c.Existed && !(exists && text == c.Original):
			return false
		case !c.Existed && exists && text != "":
			return false
		}
	}
	return true
}

// leftAsTheyWere counts p's sensitive files the editor still holds as they
// were: applied without them.
func (s *Server) leftAsTheyWere(p *proposal) int {
	n := 0
	for _, c := range p.changes {
		if text, _, exists, err := s.currentText(c.AbsPath); err == nil && exists && c.Existed && isSensitive(c) && text == c.Original && text != c.New {
			n++
		}
	}
	return n
}

// tellNextRun keeps note — what became of p — for the next run of p's
// session, when p's run is still the session's latest: after a later run,
// "the previous turn" would name the wrong one.
func (s *Server) tellNextRun(p *proposal, note string) {
	r := p.run
	if r == nil || r.history == nil {
		return
	}
	if s.runs.newest(func(o *run) bool { return o.session == r.session }) == r {
		r.history.SetAside(note)
	}
}

func isSensitive(c tools.Change) bool {
	_, ok := c.Sensitive()
	return ok
}

// noticeApplied settles as applied each pending proposal that changes path
// once the editor holds it (heldByEditor), and says so.
func (s *Server) noticeApplied(ctx context.Context, path string) {
	caps := s.clientCaps()
	for _, p := range s.runs.pendingTouching(path) {
		if !s.heldByEditor(p, caps) {
			continue
		}
		if _, err := s.runs.move(p.name(), proposalApplied); err != nil {
			continue // settled another way meanwhile
		}
		s.showMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("agent-lsp: %s is applied: the editor holds its changes (write the changed buffers to save them).", p.name()))
		if left := s.leftAsTheyWere(p); left > 0 {
			s.tellNextRun(p, fmt.Sprintf(agentrun.AsideAppliedBut, left))
		} else {
			s.tellNextRun(p, agentrun.AsideApplied)
		}
		s.afterApplied(ctx, p, caps)
	}
}

// afterApplied does what applying a proposal brings: its run's notes are
// kept, and its new files the client could not create are offered —
// beside the read loop, where noticeApplied runs: showing them as
// documents waits on the client.
func (s *Server) afterApplied(ctx context.Context, p *proposal, caps clientCaps) {
	s.keepRunNotes(ctx, p.run) // applying the run's proposal accepts its notes too
	var newFiles []tools.Change
	if !(caps.documentChanges && caps.createFiles) && !newFilesInBuffers(caps) {
		for _, c := range p.changes {
			if !c.Existed {
				newFiles = append(newFiles, c)
			}
		}
	}
	if len(newFiles) > 0 {
		go s.offerNewFiles(besideReader(ctx), p, newFiles, len(p.changes)-len(newFiles))
	}
}
