package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools"
)

// run is one agent.ask in the background.
type run struct {
	id      int // given by registry.add
	session string
	request string // the user's words, for titles and messages
	task    string // what the model is given: request plus the file, selection and diagnostics
	// ctx and cancel are made with the run, before anyone can find it in
	// the registry, so cancel is never nil and never written while read.
	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{}
	after    *run // the run of the same session this one waits for (queued), or nil
	settings config.Settings
	mode     agentrun.Mode // "" follows the settings (agentrun.DefaultMode)
	history  *agent.History
	// waited: the request that asked for it lasts until it ends, and
	// carries its answer (agent.ask's wait).
	waited bool
	// continued: the run goes on from a failed one (the user chose to
	// retry), on its view and changeset (ws) and notes.
	continued bool
	progress  *workDone // set when the run starts, before anything reports

	// folder is where the run started (the folder of the file it was asked
	// about): its policy and notes are the run's. ws, its view of every
	// folder, is opened with it (runView).
	folder *folder

	mu       sync.Mutex // guards the fields below
	st       runState
	answer   string
	err      error
	ws       *tools.Workspace
	planGate chan bool // set while the run's plan waits for agent.runPlan
	usage    llm.Usage // tokens of the run so far
	// notes is the run's view of the memory: what the model's remember
	// proposes waits there until the user keeps it (see notes.go).
	notes *agent.Memory
}

// newRun makes a run that is not listed yet: registry.add numbers it.
func newRun(session, request, task string, settings config.Settings, history *agent.History) *run {
	r := &run{session: session, request: request, task: task, done: make(chan struct{}), settings: settings, history: history, st: runRunning}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r
}

func (r *run) name() string { return fmt.Sprintf("run-%d", r.id) }

// proposalName is the name r's proposal has, or would have.
func (r *run) proposalName() string { return (&proposal{id: r.id}).name() }

func (r *run) state() runState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.st
}

func (r *run) result() (runState, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.st, r.answer, r.err
}

// usageSoFar is the run's token count.
func (r *run) usageSoFar() llm.Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.usage
}

// startRun is the one place long work starts: detached from the request with
// its own cancel, reported through work-done progress (cancellable), ended as
// completed, failed or cancelled. The request returns at once.
func (s *Server) startRun(r *run, provider llm.Provider) {
	go func() {
		defer close(r.done)
		defer r.cancel()
		r.progress = s.progress.start(r.ctx, r.name(), "Agent", summarize(r.request, 80), r.cancel)
		if r.after != nil {
			r.progress.report(r.ctx, "Queued behind "+r.after.name()+" (same conversation)")
			select {
			case <-r.after.done:
			case <-r.ctx.Done():
			}
		}
		out, err := s.execute(r.ctx, r, provider)
		if serr := s.sessions.save(r.session, r.history); serr != nil {
			s.log.Warn("saving the session", "error", serr)
		}
		s.sessions.release(r.session)
		answer, state := out.Answer, runCompleted
		switch out.Ending {
		case agentrun.Cancelled:
			state = runCancelled
		case agentrun.Failed:
			state = runFailed
		case agentrun.Stopped:
			// Completed with what it has: the answer says why it stopped.
			answer, err = strings.TrimSpace(answer+"\n\n"+out.StopNote), nil
		}
		r.mu.Lock()
		r.answer, r.err, r.st = answer, err, state
		r.mu.Unlock()
		// The run's context is gone when cancelled; report with a fresh one.
		endCtx, endCancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer endCancel()
		s.finishRun(endCtx, r, state, answer, err)
	}()
}

func (s *Server) execute(ctx context.Context, r *run, provider llm.Provider) (agentrun.Outcome, error) {
	settings := r.settings
	r.mu.Lock()
	ws := r.ws // opened when the run was asked for (runView)
	r.mu.Unlock()
	if ws == nil || r.folder == nil {
		return agentrun.Outcome{Ending: agentrun.Failed}, errors.New("the run has no workspace view")
	}
	policy := r.folder.policy
	notes := s.runNotes(r)
	defer ws.Close() // the sandbox, if commands needed one; made again if the run continues
	trace := agent.TraceWriter(&logWriter{s: s, ctx: ctx, prefix: "[" + r.name() + "] "}, provider.Name())
	out, err := agentrun.Do(ctx, agentrun.Request{
		Settings: settings, Provider: provider, Mode: r.mode, Prompt: r.task, History: r.history, Continue: r.continued,
		View: ws, Policy: policy, Approver: editorApprover{s: s, run: r, timeout: settings.ApprovalTimeout()}, Notes: notes, MCP: s.mcp, LSP: s.lsp,
		ConfirmPlan: func(ctx context.Context, plan string) (bool, error) { return s.confirmPlan(ctx, r, plan) },
		Stream:      true,
		OnEvent: func(e agent.Event) {
			if e.Kind != agent.EventTextDelta && e.Kind != agent.EventReasoningDelta {
				trace(e)
			}
			if e.Kind == agent.EventPlan {
				// The plan is shown before it runs, where the answer will be.
				go s.showFile(context.WithoutCancel(ctx), r.name()+"-plan.md", "# Plan: "+summarize(r.request, 80)+"\n\n"+tools.Displayable(e.Text), false)
			}
			s.options.observe(e)
			r.progress.event(ctx, e)
		},
	})
	if !out.Proposal.Empty() && out.Offers() {
		s.runs.propose(r, out.Proposal.Changes)
	}
	r.mu.Lock()
	r.usage.Add(out.Usage)
	r.mu.Unlock()
	return out, err
}

// answerMessageLimit bounds an answer shown as a message, for clients that
// cannot open the answer document.
const answerMessageLimit = 1500

// finishRun shows the answer, offers or sends the proposal, and ends the progress.
func (s *Server) finishRun(ctx context.Context, r *run, state runState, answer string, err error) {
	p := s.runs.proposalOf(r)
	caps := s.clientCaps()
	autoApply := s.workspace.settings().AutoApplies()

	switch state {
	case runCancelled:
		r.progress.end(ctx, "Cancelled")
		return
	case runFailed:
		r.progress.end(ctx, "Failed: "+err.Error())
		if providerFailure(err) {
			go s.escalate(r, err)
			return
		}
		s.showMessage(ctx, protocol.MessageTypeError, "agent-lsp: "+r.name()+" failed: "+err.Error())
		return
	}
	var doc strings.Builder
	fmt.Fprintf(&doc, "# Agent: %s\n\n%s\n", summarize(r.request, 80), strings.TrimSpace(answer))
	if p != nil {
		fmt.Fprintf(&doc, "\n## Proposed changes (%s)\n\n```diff\n%s```\n", p.name(), p.diff())
		if !caps.annotations {
			fmt.Fprintf(&doc, "\nNothing is changed yet. Apply it with %s, or discard it with %s.\n",
				howTo(caps, "Apply agent proposal", CommandApplyProposal, p.name()), howTo(caps, "Discard agent proposal", CommandDiscardProposal, p.name()))
		}
	}
	notes := s.notesNotice(r, p, caps)
	doc.WriteString(notes)
	usage := r.usageSoFar()
	end := "Completed · " + usage.String()
	if p != nil {
		end = fmt.Sprintf("Completed: %d file(s) changed (%s) · %s", len(p.changes), p.name(), usage)
	}
	// The answer document is read, never obeyed: escaped like a message.
	u := s.writeDocument(r.name()+".md", tools.Displayable(doc.String()))
	answer = strings.TrimSpace(answer)
	shown := false
	if u != "" && (!caps.oneRowMessages || p != nil || !fitsOneRow(answer)) {
		// Where a message is one row (Helix), only what does not fit in
		// one is opened: a short answer stays in the status line.
		shown = s.openDocument(ctx, u, false)
	}
	var msg string
	if !shown && !(r.waited && caps.showsAnswers) {
		msg = s.answerMessage(r, p, caps, answer, u, notes)
	}
	endSaid := msg != "" && r.progress.plain
	if endSaid {
		// Without progress the message carries the end line too: one
		// message per outcome, which a client showing one at a time keeps.
		msg += "\n\n" + end
	}
	// The end first: a client that shows only the latest message (Helix)
	// keeps the answer, not "Completed".
	r.progress.endSaid(ctx, end, endSaid)
	if msg != "" {
		s.showMessage(ctx, protocol.MessageTypeInfo, msg)
	}
	if p != nil && caps.applyEdit && (caps.annotations || autoApply) {
		// Annotated edits make the editor preview and confirm; autoApply
		// is the user's explicit choice.
		go s.sendProposal(context.Background(), p.name())
	}
}

// oneRowWidth is how much of a message a one-row client (Helix) is sure to
// show in a terminal's width.
const oneRowWidth = 80

// fitsOneRow reports whether answer shows whole on one row.
func fitsOneRow(answer string) bool {
	return !strings.Contains(answer, "\n") && utf8.RuneCountInString(answer) <= oneRowWidth
}

// answerMessage is the answer as a message: its lines kept, cut where long,
// and where the whole is (u); for a one-row client the path comes first,
// where it is seen.
func (s *Server) answerMessage(r *run, p *proposal, caps clientCaps, answer string, u uri.URI, notes string) string {
	if caps.oneRowMessages && p == nil && fitsOneRow(answer) {
		return "agent-lsp: " + r.name() + ": " + answer + notes
	}
	msg := "agent-lsp: " + r.name() + ":\n" + excerpt(answer, answerMessageLimit)
	if u != "" && caps.oneRowMessages {
		msg = "agent-lsp: " + r.name() + " (the full answer: " + u.FsPath() + "):\n" + excerpt(answer, answerMessageLimit)
	} else if u != "" {
		msg += "\n\nThe full answer: " + u.FsPath()
	}
	if p != nil {
		commands := CommandShowProposal + ", " + CommandApplyProposal
		if !caps.applyEdit {
			commands = CommandShowProposal // applying is the code action's edit
		}
		msg += fmt.Sprintf("\n\n%d file(s) changed in %s: the code actions \"Show agent proposal\" and \"Apply agent proposal\" (or the commands %s).", len(p.changes), p.name(), commands)
	}
	return msg + notes
}

// sendProposal sends workspace/applyEdit for a pending proposal; an
// "applied: false" answer keeps it pending. New files the client cannot
// create are offered once the rest is applied (offerNewFiles).
func (s *Server) sendProposal(ctx context.Context, name string) (out applyResult, p *proposal, err error) {
	caps := s.clientCaps()
	if !caps.applyEdit {
		// Said before anything is claimed: the proposal stays pending.
		if p, err = s.runs.proposal(name); err != nil {
			return out, nil, err
		}
		return out, p, fmt.Errorf("this editor said it cannot take workspace/applyEdit: pick \"Apply agent proposal\" for %s from the code actions, which carries the edit itself", p.name())
	}
	// Claimed before anything is sent: a second apply, or the automatic
	// send racing a manual one, is refused instead of sent twice.
	p, err = s.runs.move(name, proposalApplying)
	if err != nil {
		return out, nil, err
	}
	out.ID = p.name()
	final := proposalPending // unless the client applies it
	recheck := false
	defer func() {
		s.runs.settle(p, final)
		if recheck {
			s.noticeApplied(context.WithoutCancel(ctx), p.changes[0].AbsPath)
		}
	}()
	edit, newFiles, err := s.workspaceEdit(p, caps)
	if err != nil {
		s.showMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("agent-lsp: %s not applied: %v", p.name(), err))
		return out, p, err
	}
	if !editsNothing(edit) {
		// The proposal's name first: a client that reviews the edit itself
		// (our VS Code extension) applies or discards that one by name.
		label := "agent-lsp: " + p.name() + ": " + summarize(p.request, 60)
		bound := s.workspace.settings().ApprovalTimeout()
		ask, cancel := context.WithTimeoutCause(ctx, bound, errNoAnswer)
		defer cancel()
		before := s.filesNow(p, caps)
		result, err := s.client.ApplyEdit(ask, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit})
		switch {
		case err != nil && ctx.Err() == nil && errors.Is(context.Cause(ask), errNoAnswer) && s.heldByEditor(p, caps):
			// No answer, but the edit landed (ALE applies and never answers).
		case err != nil && ctx.Err() == nil && errors.Is(context.Cause(ask), errNoAnswer):
			s.showMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
				"agent-lsp: the editor gave no answer to %s's edit within %s (approval_timeout_s): it stays pending; the code actions \"Apply agent proposal\", \"Show agent proposal\" and \"Discard agent proposal\" still act on it.",
				p.name(), bound))
			return out, p, fmt.Errorf("the editor gave no answer within %s", bound)
		case err != nil:
			s.showMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("agent-lsp: the editor answered %s's edit with an error (%v): it stays pending.", p.name(), err))
			return out, p, err
		case result == nil || !result.Applied:
			if result != nil && result.FailureReason != nil {
				out.Reason = *result.FailureReason
			}
			return out, p, nil
		case !s.editorChanged(ctx, p, caps, before):
			// "Applied", yet the editor changed none of its files, in a
			// buffer or on disk (coc.nvim's answer when the user refused
			// every edit it asked to confirm): the proposal stays pending.
			// Should the edit land after all, noticeApplied settles it,
			// here too for one that came meanwhile.
			out.Reason = "the editor changed none of its files (the edit was refused)"
			recheck = true
			return out, p, nil
		}
	}
	final, out.Applied = proposalApplied, true
	s.tellNextRun(p, agentrun.AsideApplied)
	out.Offered = s.offerNewFiles(ctx, p, newFiles, len(p.changes)-len(newFiles))
	s.keepRunNotes(ctx, p.run) // applying the run's proposal accepts its notes too
	return out, p, nil
}

// logWriter turns the trace into window/logMessage lines.
type logWriter struct {
	s      *Server
	ctx    context.Context
	prefix string
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.s.logMessage(w.ctx, protocol.MessageTypeLog, w.prefix+strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
