package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/server/apply"
	"github.com/agent-lsp/agent-lsp/tools"
)

// A client without workspace/applyEdit (ALE says so) applies a proposal
// from a code action that carries its edit, and never tells the server;
// a client that takes applyEdit may never answer it (ALE again, were it
// sent). Either way the server sees the result: the editor holds the
// proposal's text, in its buffers or on disk. That is when it is applied.

// applyActions offers p as code actions carrying its edit, for a client
// that cannot take workspace/applyEdit: its files without the sensitive
// ones, and, as a second action naming them, with them.
func (ps *proposals) applyActions(l *actionList, p *proposal, caps clientCaps, kind protocol.CodeActionKind) {
	rest, sensitive := apply.Split(p.changes, false)
	if len(rest) > 0 {
		// Counted as the edit carries them: new files the client cannot
		// create are offered once it is applied.
		if edit, newFiles, err := ps.editOf(p, rest, caps); err == nil && !editsNothing(edit) {
			title := fmt.Sprintf("Apply agent proposal (%d file(s), %s)", len(rest)-len(newFiles), p.name())
			if len(newFiles) > 0 && newFilesInBuffers(caps) {
				title = fmt.Sprintf("Apply agent proposal (%d file(s), %s; %d new file(s) in buffers, not created until you write them)", len(rest)-len(newFiles), p.name(), len(newFiles))
			}
			l.edit(title, kind, edit)
		}
	}
	if len(sensitive) > 0 {
		if edit, _, err := ps.editOf(p, p.changes, caps); err == nil && !editsNothing(edit) {
			l.edit(fmt.Sprintf("Apply agent proposal with its sensitive files (%s): %s", p.name(), apply.DescribeSensitive(sensitive)), kind, edit)
		}
	}
}

// What was applied is read from what the editor did to the files, both
// where it may have done it: an editor changes a file in its buffer (and
// says so with didChange) or writes it whole on disk (our VS Code
// extension, for a file no editor shows, says nothing), and creates a file
// either way.

// holds reports whether the editor holds text for the file at abs: in its
// open buffer, or on disk.
func (ps *proposals) holds(abs, text string) (bool, error) {
	if doc, ok := ps.docs.GetPath(abs); ok && doc.Text == text {
		return true, nil
	}
	data, err := tools.ReadRegular(abs) // a FIFO put there must not hang the server
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	}
	return string(data) == text, nil
}

// heldByEditor reports whether the editor holds p as proposed: every file
// the client could be sent has the proposed text, in its buffer or on
// disk, except sensitive files left as they were, and at least one file
// changed.
func (ps *proposals) heldByEditor(p *proposal, caps clientCaps) bool {
	held := 0
	for _, c := range sendable(p, caps) {
		proposed, err := ps.holds(c.AbsPath, c.New)
		if err != nil {
			return false
		}
		if proposed {
			held++
			continue
		}
		if asWas, err := ps.holds(c.AbsPath, c.Original); err != nil || !(c.Existed && asWas && isSensitive(c)) {
			return false
		}
		// left out, as the action without sensitive files does
	}
	return held > 0
}

// sendable are p's changes the client can be sent: all but the new files
// it cannot create, which are offered another way (offerNewFiles).
func sendable(p *proposal, caps clientCaps) []tools.Change {
	canCreate := caps.documentChanges && caps.createFiles
	return slices.DeleteFunc(slices.Clone(p.changes), func(c tools.Change) bool { return !c.Existed && !canCreate })
}

// fileNow is a file as the editor has it: its open buffer and its disk
// text, each where there is one.
type fileNow struct {
	buffer, disk     string
	inBuffer, onDisk bool
	unreadable       bool
}

// filesNow is how the editor has p's files the client can be sent, to tell
// what an edit changed (editorChanged).
func (ps *proposals) filesNow(p *proposal, caps clientCaps) []fileNow {
	var out []fileNow
	for _, c := range sendable(p, caps) {
		var f fileNow
		if doc, ok := ps.docs.GetPath(c.AbsPath); ok {
			f.buffer, f.inBuffer = doc.Text, true
		}
		data, err := tools.ReadRegular(c.AbsPath)
		switch {
		case err == nil:
			f.disk, f.onDisk = string(data), true
		case !errors.Is(err, fs.ErrNotExist):
			f.unreadable = true
		}
		out = append(out, f)
	}
	return out
}

// editorChangeGrace is how long after the client answers an edit
// "applied" the server waits for the editor's didChange before it takes
// that nothing was applied: Neovim sends its changes up to 150 ms later
// (debounce_text_changes), and a client may answer before it sends them.
const editorChangeGrace = time.Second

// editorChanged reports whether the editor changed any of p's files from
// how they were before the edit was sent (before, filesNow's), in a buffer
// or on disk, by the time the client answered or within editorChangeGrace
// after. coc.nvim answers "applied" though the user refused every edit it
// asked to confirm: then nothing changed. Read for a client that asks to
// confirm (change annotations): one that does not applied what it says.
func (ps *proposals) editorChanged(ctx context.Context, p *proposal, caps clientCaps, before []fileNow) bool {
	changed := make(chan struct{}, 1)
	stop := ps.docs.WatchBuffers(func(abs string) {
		if slices.ContainsFunc(p.changes, func(c tools.Change) bool { return c.AbsPath == abs }) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	defer stop()
	grace := time.NewTimer(editorChangeGrace)
	defer grace.Stop()
	if !slices.Equal(before, ps.filesNow(p, caps)) {
		return true
	}
	for {
		select {
		case <-changed:
			if !slices.Equal(before, ps.filesNow(p, caps)) {
				return true
			}
		case <-grace.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// leftAsTheyWere counts p's sensitive files the editor still holds as they
// were: applied without them.
func (ps *proposals) leftAsTheyWere(p *proposal) int {
	n := 0
	for _, c := range p.changes {
		if !c.Existed || !isSensitive(c) || c.Original == c.New {
			continue
		}
		asWas, err := ps.holds(c.AbsPath, c.Original)
		proposed, err2 := ps.holds(c.AbsPath, c.New)
		if err == nil && err2 == nil && asWas && !proposed {
			n++
		}
	}
	return n
}

// tellNextRun keeps note — what became of p — for the next run of p's
// session, when p's run is still the session's latest: after a later run,
// "the previous turn" would name the wrong one.
func (ps *proposals) tellNextRun(p *proposal, note string) {
	r := p.run
	if r == nil || r.history == nil {
		return
	}
	if ps.runs.newest(func(o *run) bool { return o.session == r.session }) == r {
		r.history.SetAside(note)
	}
}

func isSensitive(c tools.Change) bool {
	_, ok := c.Sensitive()
	return ok
}

// noticeAt is noticeApplied for a document's URI.
func (ps *proposals) noticeAt(ctx context.Context, u uri.URI) {
	if path, err := ps.docs.Path(u); err == nil {
		ps.noticeApplied(ctx, path)
	}
}

// noticeApplied settles as applied each pending proposal that changes path
// once the editor holds it (heldByEditor), and says so.
func (ps *proposals) noticeApplied(ctx context.Context, path string) {
	caps := ps.win.caps.get()
	for _, p := range ps.runs.pendingTouching(path) {
		if !ps.heldByEditor(p, caps) {
			continue
		}
		if _, err := ps.runs.move(p.name(), proposalApplied); err != nil {
			continue // settled another way meanwhile
		}
		ps.win.showMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("agent-lsp: %s is applied: the editor holds its changes (write the changed buffers to save them).", p.name()))
		if left := ps.leftAsTheyWere(p); left > 0 {
			ps.tellNextRun(p, fmt.Sprintf(agentrun.AsideAppliedBut, left))
		} else {
			ps.tellNextRun(p, agentrun.AsideApplied)
		}
		ps.afterApplied(ctx, p, caps)
	}
}

// afterApplied does what applying a proposal brings: its run's notes are
// kept, and its new files the client could not create are offered —
// beside the read loop, where noticeApplied runs: showing them as
// documents waits on the client.
func (ps *proposals) afterApplied(ctx context.Context, p *proposal, caps clientCaps) {
	ps.notes.keepApplied(ctx, p.run) // applying the run's proposal accepts its notes too
	var newFiles []tools.Change
	if !(caps.documentChanges && caps.createFiles) && !newFilesInBuffers(caps) {
		for _, c := range p.changes {
			if !c.Existed {
				newFiles = append(newFiles, c)
			}
		}
	}
	if len(newFiles) > 0 {
		go ps.offers.newFiles(besideReader(ctx), p, newFiles, len(p.changes)-len(newFiles))
	}
}
