package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/server/agentrun"
)

// The commands that decide on a proposal, and sending one as
// workspace/applyEdit.

type applyResult struct {
	ID      string `json:"id"`
	Applied bool   `json:"applied"`
	Reason  string `json:"reason"` // the client's, when it declined
	// Offered are the new files the client could not create, offered as
	// documents to save instead.
	Offered []offeredFile `json:"offered,omitempty"`
}

func (ps *proposals) apply(ctx context.Context, a idArgs) (applyResult, error) {
	out, p, err := ps.send(ctx, a.ID)
	if p == nil {
		return applyResult{}, err // no such proposal, or not pending
	}
	if err != nil {
		return applyResult{}, jsonrpc2.NewError(codeRequestFailed, fmt.Sprintf("%s not applied: %v", p.name(), err))
	}
	return out, nil
}

type discardResult struct {
	ID    string        `json:"id"`
	State proposalState `json:"state"`
}

func (ps *proposals) discard(_ context.Context, a idArgs) (discardResult, error) {
	p, err := ps.runs.move(a.ID, proposalDiscarded)
	if err != nil {
		return discardResult{}, err
	}
	ps.tellNextRun(p, agentrun.AsideNotAccepted)
	return discardResult{ID: p.name(), State: proposalDiscarded}, nil
}

type showResult struct {
	ID    string  `json:"id"`
	Diff  string  `json:"diff"`
	URI   uri.URI `json:"uri"`
	Shown bool    `json:"shown"` // false: the client cannot show documents
}

// showDiffLimit bounds the diff put in a message, for clients that show no
// documents.
const showDiffLimit = 3000

// show is agent.showProposal: it opens the proposal's unified diff as a document and returns it,
// so clients without showDocument can display it themselves.
func (ps *proposals) show(ctx context.Context, a idArgs) (showResult, error) {
	p, err := ps.runs.proposal(a.ID)
	if err != nil {
		return showResult{}, err
	}
	diff := p.diff()
	// Helix, told to take focus, replaces the file's view with the diff;
	// beside it, the file stays in view.
	u, shown := ps.win.showFile(ctx, p.name()+".diff", diff, !ps.win.caps.get().oneRowMessages)
	ownClient := ps.win.caps.get().promptInput // our clients show the result's diff themselves
	if !shown && !ownClient {
		// A client that shows no documents and does nothing with a
		// command's result (ALE, vim-lsp, eglot) would show nothing at all.
		// The diff itself, capped: ALE shows a long message in its
		// preview window.
		msg := "agent-lsp: " + p.name() + ": " + diffSummary(diff) + "\n\n" + excerpt(diff, showDiffLimit)
		if u != "" {
			msg += "\n\nThe whole diff: " + u.FsPath()
		}
		ps.win.showMessage(ctx, protocol.MessageTypeInfo, msg)
	}
	return showResult{ID: p.name(), Diff: diff, URI: u, Shown: shown}, nil
}

// diffSummary says what a unified diff changes, a line per file:
// "2 file(s) changed:\n  a.py +3 -1\n  new.txt +2 -0".
func diffSummary(diff string) string {
	type counts struct {
		path           string
		added, removed int
	}
	var files []counts
	old := ""
	for line := range strings.Lines(diff) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "--- "):
			old = strings.TrimPrefix(strings.TrimPrefix(line, "--- "), "a/")
		case strings.HasPrefix(line, "+++ "):
			path := strings.TrimPrefix(strings.TrimPrefix(line, "+++ "), "b/")
			if path == "/dev/null" { // a deletion: named by its --- line
				path = old
			}
			files = append(files, counts{path: path})
		case len(files) == 0:
		case strings.HasPrefix(line, "+"):
			files[len(files)-1].added++
		case strings.HasPrefix(line, "-"):
			files[len(files)-1].removed++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d file(s) changed:", len(files))
	for _, f := range files {
		fmt.Fprintf(&b, "\n  %s +%d -%d", f.path, f.added, f.removed)
	}
	return b.String()
}

// send sends workspace/applyEdit for a pending proposal; an
// "applied: false" answer keeps it pending. New files the client cannot
// create are offered once the rest is applied (offerNewFiles).
func (ps *proposals) send(ctx context.Context, name string) (out applyResult, p *proposal, err error) {
	caps := ps.win.caps.get()
	if !caps.applyEdit {
		// Said before anything is claimed: the proposal stays pending.
		if p, err = ps.runs.proposal(name); err != nil {
			return out, nil, err
		}
		return out, p, fmt.Errorf("this editor said it cannot take workspace/applyEdit: pick \"Apply agent proposal\" for %s from the code actions, which carries the edit itself", p.name())
	}
	// Claimed before anything is sent: a second apply, or the automatic
	// send racing a manual one, is refused instead of sent twice.
	p, err = ps.runs.move(name, proposalApplying)
	if err != nil {
		return out, nil, err
	}
	out.ID = p.name()
	final := proposalPending // unless the client applies it
	recheck := false
	defer func() {
		ps.runs.settle(p, final)
		if recheck {
			ps.noticeApplied(context.WithoutCancel(ctx), p.changes[0].AbsPath)
		}
	}()
	edit, newFiles, err := ps.workspaceEdit(p, caps)
	if err != nil {
		ps.win.showMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("agent-lsp: %s not applied: %v", p.name(), err))
		return out, p, err
	}
	if !editsNothing(edit) {
		// The proposal's name first: a client that reviews the edit itself
		// (our VS Code extension) applies or discards that one by name.
		label := "agent-lsp: " + p.name() + ": " + summarize(p.request, 60)
		bound := ps.workspace.settings().ApprovalTimeout()
		ask, cancel := context.WithTimeoutCause(ctx, bound, errNoAnswer)
		defer cancel()
		before := ps.filesNow(p, caps)
		result, err := ps.win.client.ApplyEdit(ask, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit})
		switch {
		case err != nil && ctx.Err() == nil && errors.Is(context.Cause(ask), errNoAnswer) && ps.heldByEditor(p, caps):
			// No answer, but the edit landed (ALE applies and never answers).
		case err != nil && ctx.Err() == nil && errors.Is(context.Cause(ask), errNoAnswer):
			ps.win.showMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
				"agent-lsp: the editor gave no answer to %s's edit within %s (approval_timeout_s): it stays pending; the code actions \"Apply agent proposal\", \"Show agent proposal\" and \"Discard agent proposal\" still act on it.",
				p.name(), bound))
			return out, p, fmt.Errorf("the editor gave no answer within %s", bound)
		case err != nil:
			ps.win.showMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("agent-lsp: the editor answered %s's edit with an error (%v): it stays pending.", p.name(), err))
			return out, p, err
		case result == nil || !result.Applied:
			if result != nil && result.FailureReason != nil {
				out.Reason = *result.FailureReason
			}
			return out, p, nil
		case caps.annotations && !ps.editorChanged(ctx, p, caps, before):
			// "Applied", yet the editor changed none of its files, in a
			// buffer or on disk (coc.nvim's answer when the user refused
			// every edit it asked to confirm): the proposal stays pending.
			// Should the edit land after all, noticeApplied settles it,
			// here too for one that came meanwhile. A client that confirms
			// nothing applied the edit it says it applied: eglot sends its
			// didChange once Emacs is idle, which may be long after.
			out.Reason = "the editor changed none of its files (the edit was refused)"
			recheck = true
			return out, p, nil
		}
	}
	final, out.Applied = proposalApplied, true
	ps.tellNextRun(p, agentrun.AsideApplied)
	out.Offered = ps.offers.newFiles(ctx, p, newFiles, len(p.changes)-len(newFiles))
	ps.notes.keepApplied(ctx, p.run) // applying the run's proposal accepts its notes too
	return out, p, nil
}
