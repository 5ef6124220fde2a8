package server

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Run states.
const (
	runRunning   = "running"
	runCompleted = "completed"
	runFailed    = "failed"
	runCancelled = "cancelled"
)

// run is one agent.ask in the background.
type run struct {
	id, proposalID, session, prompt string
	token                           protocol.ProgressToken
	// ctx and cancel are made with the run, before anyone can find it in
	// s.runs, so cancel is never nil and never written while read.
	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{}
	after    *run      // the run of the same session this one waits for (queued), or nil
	planGate chan bool // set while the run's plan waits for agent.runPlan (guarded by mu)
	settings config.Settings
	history  *agent.History
	// ws is the run's view and changeset; a continued run (after a failure
	// the user chose to retry) keeps the one it continues.
	ws        *tools.Workspace
	continued bool

	mu     sync.Mutex // guards the fields below
	state  string
	answer string
	err    error
	step   string // "Iteration 2/10 · read_file a.go", for progress
	// progressOff is set when the client refused to create the progress.
	progressOff bool
	streamed    string    // the model's text so far this iteration
	lastReport  time.Time // when progress was last reported, to throttle streaming
	reasoning   string    // the model's streamed reasoning this iteration
	usage       llm.Usage // tokens of the run so far
	// notes is the run's view of the memory: what the model's remember
	// proposes waits there until the user keeps it (see notes.go).
	notes *agent.Memory
}

func (r *run) snapshot() (state, answer string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state, r.answer, r.err
}

// startRun is the one place long work starts: detached from the request with
// its own cancel, reported through work-done progress (cancellable), ended as
// completed, failed or cancelled. The request returns at once.
func (s *Server) startRun(r *run, provider llm.Provider) {
	ctx, cancel := r.ctx, r.cancel
	go func() {
		defer close(r.done)
		defer cancel()
		s.progressBegin(ctx, r)
		if r.after != nil {
			s.progressReport(ctx, r, "Queued behind "+r.after.id+" (same conversation)")
			select {
			case <-r.after.done:
			case <-ctx.Done():
			}
		}
		answer, err := s.execute(ctx, r, provider)
		if serr := s.store.Save(r.session, r.history); serr != nil {
			s.log.Warn("saving the session", "error", serr)
		}
		r.mu.Lock()
		r.answer, r.err = answer, err
		switch {
		case err == nil:
			r.state = runCompleted
		case errors.Is(err, context.Canceled):
			r.state = runCancelled
		default:
			r.state = runFailed
		}
		state := r.state
		r.mu.Unlock()
		// The run's context is gone when cancelled; report with a fresh one.
		endCtx, endCancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer endCancel()
		s.finishRun(endCtx, r, state, answer, err)
	}()
}

func (s *Server) execute(ctx context.Context, r *run, provider llm.Provider) (string, error) {
	s.mu.Lock()
	root, policy := s.root, s.policy
	s.mu.Unlock()
	settings := r.settings
	ws := r.ws
	if ws == nil {
		var err error
		if ws, err = tools.NewWorkspace(root, s.docs); err != nil {
			return "", err
		}
		ws.SetSandbox(tools.SandboxOptions{Dir: filepath.Join(s.opts.CacheDir, "sandbox"), Network: settings.SandboxNetwork.Allows(ws.Root(), s.opts.Env("HOME"))})
		r.mu.Lock()
		r.ws = ws
		r.mu.Unlock()
	}
	notes := s.runNotes(r)
	defer ws.Close() // the sandbox, if commands needed one; made again if the run continues
	trace := agent.TraceWriter(&logWriter{s: s, ctx: ctx, prefix: "[" + r.id + "] "}, provider.Name())
	a, err := agent.Build(agent.Setup{
		Provider: provider, Workspace: ws, Policy: policy, Approver: editorApprover{s}, Memory: notes,
		Limits:        tools.CommandLimits{Timeout: time.Duration(settings.CommandTimeoutS) * time.Second, MaxOutput: settings.MaxOutput},
		MaxIterations: settings.MaxIterations, ContextWindow: settings.ContextWindow, Stream: true,
		OnEvent: func(e agent.Event) {
			if e.Kind != agent.EventTextDelta && e.Kind != agent.EventReasoningDelta {
				trace(e)
			}
			if e.Kind == agent.EventPlan {
				// The plan is shown before it runs, where the answer will be.
				go s.showFile(context.WithoutCancel(ctx), r.id+"-plan.md", "# Plan: "+summarize(r.prompt, 80)+"\n\n"+e.Text, false)
			}
			s.progressEvent(ctx, r, e)
		},
	})
	if err != nil {
		return "", err
	}
	var out agent.Outcome
	if r.continued {
		out, err = a.Continue(ctx, r.history)
	} else {
		strategy, _ := agent.ParseStrategy(settings.Strategy) // Validate checked it
		task := agent.Task{Prompt: r.prompt, Strategy: strategy, History: r.history, Workspace: ws,
			Checks: settings.Checks, MaxTrials: settings.MaxTrials, MaxReplans: settings.MaxReplans}
		if settings.PlanConfirm == nil || *settings.PlanConfirm {
			task.ConfirmPlan = func(ctx context.Context, plan string) (bool, error) { return s.confirmPlan(ctx, r, plan) }
		}
		out, err = a.Do(ctx, task)
	}
	if p := ws.Proposal(); !p.Empty() && (err == nil) {
		s.mu.Lock()
		s.proposals[r.proposalID] = &proposal{id: r.proposalID, runID: r.id, prompt: r.prompt, changes: p.Changes, state: proposalPending}
		s.mu.Unlock()
	}
	r.mu.Lock()
	r.usage.Add(out.Usage)
	r.mu.Unlock()
	return out.Answer, err
}

// finishRun shows the answer, offers or sends the proposal, and ends the progress.
func (s *Server) finishRun(ctx context.Context, r *run, state, answer string, err error) {
	s.mu.Lock()
	p := s.proposals[r.proposalID]
	caps := s.caps
	autoApply := s.settingsLocked().AutoApply
	s.mu.Unlock()

	switch state {
	case runCancelled:
		s.progressEnd(ctx, r, "Cancelled")
		return
	case runFailed:
		s.progressEnd(ctx, r, "Failed: "+err.Error())
		if providerFailure(err) {
			go s.escalate(r, err)
			return
		}
		s.showMessage(ctx, protocol.MessageTypeError, "agent-lsp: "+r.id+" failed: "+err.Error())
		return
	}
	var doc strings.Builder
	fmt.Fprintf(&doc, "# Agent: %s\n\n%s\n", summarize(r.prompt, 80), strings.TrimSpace(answer))
	if p != nil {
		fmt.Fprintf(&doc, "\n## Proposed changes (%s)\n\n```diff\n%s```\n", p.id, p.diff())
		if !caps.annotations {
			fmt.Fprintf(&doc, "\nNothing is changed yet. Apply with the command `agent.applyProposal %s`, or discard with `agent.discardProposal %s`.\n", p.id, p.id)
		}
	}
	notes := s.notesNotice(r, p)
	doc.WriteString(notes)
	if _, shown := s.showFile(ctx, r.id+".md", doc.String(), false); !shown {
		msg := summarize(answer, 500)
		if p != nil {
			msg += fmt.Sprintf("\n\n%d file(s) changed in %s: agent.showProposal to see the diff, agent.applyProposal to apply.", len(p.changes), p.id)
		}
		msg += notes
		s.showMessage(ctx, protocol.MessageTypeInfo, msg)
	}
	r.mu.Lock()
	usage := r.usage
	r.mu.Unlock()
	end := "Completed · " + usage.String()
	if p != nil {
		end = fmt.Sprintf("Completed: %d file(s) changed (%s) · %s", len(p.changes), p.id, usage)
		if caps.annotations || autoApply {
			// Annotated edits make the editor preview and confirm; autoApply
			// is the user's explicit choice.
			go s.sendProposal(context.Background(), p.id)
		}
	}
	s.progressEnd(ctx, r, end)
}

// sendProposal sends workspace/applyEdit for a pending proposal; an
// "applied: false" answer keeps it pending.
func (s *Server) sendProposal(ctx context.Context, id string) (applied bool, reason string, err error) {
	// The state moves to applying under the lock, so a second apply (or the
	// automatic send racing a manual one) is refused instead of sent twice.
	s.mu.Lock()
	p, ok := s.proposals[id]
	caps := s.caps
	was := ""
	if ok {
		was = p.state
		if was == proposalPending {
			p.state = proposalApplying
		}
	}
	s.mu.Unlock()
	if !ok {
		return false, "", fmt.Errorf("no proposal %q", id)
	}
	if was != proposalPending {
		return false, "", fmt.Errorf("%s is already %s", id, was)
	}
	final := proposalPending // unless the client applies it
	defer func() {
		s.mu.Lock()
		p.state = final
		s.mu.Unlock()
	}()
	edit, err := s.workspaceEdit(p, caps)
	if err != nil {
		s.showMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("agent-lsp: %s not applied: %v", id, err))
		return false, "", err
	}
	label := "agent-lsp: " + summarize(p.prompt, 60)
	var result protocol.ApplyWorkspaceEditResult
	if _, err := s.conn.Call(ctx, "workspace/applyEdit", &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit}, &result); err != nil {
		return false, "", err
	}
	if result.Applied {
		final = proposalApplied
		s.keepRunNotes(ctx, p.runID) // applying the run's proposal accepts its notes too
		return true, "", nil
	}
	if result.FailureReason != nil {
		reason = *result.FailureReason
	}
	return false, reason, nil
}

func (s *Server) cancelAllRuns() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		r.cancel()
	}
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

// usageSoFar is the run's token count.
func (r *run) usageSoFar() llm.Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.usage
}
