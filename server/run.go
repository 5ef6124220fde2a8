package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
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
	"github.com/agent-lsp/agent-lsp/server/documents"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/mcp"
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

// runner starts the agent's runs (server/agentrun) and reports them to
// the editor: their progress, their answer, their proposal.
type runner struct {
	runs       *registry
	sessions   *sessionSet
	options    *sessionOptions
	workspace  *workspaceConfig
	docs       *documents.Store
	models     *agentrun.Models
	mcp        *mcp.Pool
	lsp        *langserver.Manager
	progress   *progressTracker
	win        *window
	approvals  *approvals
	notes      *noteKeeper
	proposals  *proposals
	plans      *plans
	escalation *escalation
	// newProvider builds a resumed run's model client (Options.NewProvider).
	newProvider func(ctx context.Context, s config.Settings) (llm.Provider, error)
	env         config.Env
	log         *slog.Logger
}

// start is the one place long work starts: detached from the request with
// its own cancel, reported through work-done progress (cancellable), ended as
// completed, failed or cancelled. The request returns at once.
func (rn *runner) start(r *run, provider llm.Provider) {
	go func() {
		defer close(r.done)
		defer r.cancel()
		r.progress = rn.progress.start(r.ctx, r.name(), "Agent", summarize(r.request, 80), r.cancel)
		if r.after != nil {
			r.progress.report(r.ctx, "Queued behind "+r.after.name()+" (same conversation)")
			select {
			case <-r.after.done:
			case <-r.ctx.Done():
			}
		}
		out, err := rn.execute(r.ctx, r, provider)
		if serr := rn.sessions.save(r.session, r.history); serr != nil {
			rn.log.Warn("saving the session", "error", serr)
		}
		rn.sessions.release(r.session)
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
		rn.finish(endCtx, r, state, answer, err)
	}()
}

func (rn *runner) execute(ctx context.Context, r *run, provider llm.Provider) (agentrun.Outcome, error) {
	settings := r.settings
	r.mu.Lock()
	ws := r.ws // opened when the run was asked for (runView)
	r.mu.Unlock()
	if ws == nil || r.folder == nil {
		return agentrun.Outcome{Ending: agentrun.Failed}, errors.New("the run has no workspace view")
	}
	policy := r.folder.policy
	notes := rn.notes.forRun(r)
	defer ws.Close() // the sandbox, if commands needed one; made again if the run continues
	trace := agent.TraceWriter(&logWriter{win: rn.win, ctx: ctx, prefix: "[" + r.name() + "] "}, provider.Name())
	out, err := agentrun.Do(ctx, agentrun.Request{
		Settings: settings, Provider: provider, Mode: r.mode, Prompt: r.task, History: r.history, Continue: r.continued,
		View: ws, Policy: policy, Approver: rn.approvals.approver(r.name(), settings.ApprovalTimeout()), Notes: notes, MCP: rn.mcp, LSP: rn.lsp,
		ConfirmPlan: func(ctx context.Context, plan string) (bool, error) { return rn.plans.confirm(ctx, r, plan) },
		Stream:      true,
		OnEvent: func(e agent.Event) {
			if e.Kind != agent.EventTextDelta && e.Kind != agent.EventReasoningDelta {
				trace(e)
			}
			if e.Kind == agent.EventPlan {
				// The plan is shown before it runs, where the answer will be.
				go rn.win.showFile(context.WithoutCancel(ctx), r.name()+"-plan.md", "# Plan: "+summarize(r.request, 80)+"\n\n"+tools.Displayable(e.Text), false)
			}
			rn.options.observe(e)
			r.progress.event(ctx, e)
		},
	})
	if !out.Proposal.Empty() && out.Offers() {
		rn.runs.proposeReviewed(r, out.Proposal.Changes, out.Check, out.Tests)
	}
	r.mu.Lock()
	r.usage.Add(out.Usage)
	r.mu.Unlock()
	return out, err
}

// answerMessageLimit bounds an answer shown as a message, for clients that
// cannot open the answer document.
const answerMessageLimit = 1500

// finish shows the answer, offers or sends the proposal, and ends the progress.
func (rn *runner) finish(ctx context.Context, r *run, state runState, answer string, err error) {
	p := rn.runs.proposalOf(r)
	caps := rn.win.caps.get()
	autoApply := rn.workspace.settings().AutoApplies()

	switch state {
	case runCancelled:
		r.progress.end(ctx, "Cancelled")
		return
	case runFailed:
		r.progress.end(ctx, "Failed: "+err.Error())
		if providerFailure(err) {
			go rn.escalation.ask(r, err)
			return
		}
		rn.win.showMessage(ctx, protocol.MessageTypeError, "agent-lsp: "+r.name()+" failed: "+err.Error())
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
	notes := notesNotice(r, p, caps)
	doc.WriteString(notes)
	usage := r.usageSoFar()
	end := "Completed · " + usage.String()
	if p != nil {
		end = fmt.Sprintf("Completed: %d file(s) changed (%s) · %s", len(p.changes), p.name(), usage)
	}
	// The answer document is read, never obeyed: escaped like a message.
	u := rn.win.writeDocument(r.name()+".md", tools.Displayable(doc.String()))
	answer = strings.TrimSpace(answer)
	shown := false
	if u != "" && (!caps.oneRowMessages || p != nil || !fitsOneRow(answer)) {
		// Where a message is one row (Helix), only what does not fit in
		// one is opened: a short answer stays in the status line.
		shown = rn.win.openDocument(ctx, u, false)
	}
	var msg string
	if !shown && !(r.waited && caps.showsAnswers) {
		msg = rn.answerMessage(r, p, caps, answer, u, notes)
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
		rn.win.showMessage(ctx, protocol.MessageTypeInfo, msg)
	}
	if p != nil && caps.applyEdit && (caps.annotations || autoApply) {
		// Annotated edits make the editor preview and confirm; autoApply
		// is the user's explicit choice.
		go rn.proposals.send(context.Background(), p.name())
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
func (rn *runner) answerMessage(r *run, p *proposal, caps clientCaps, answer string, u uri.URI, notes string) string {
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

// logWriter turns the trace into window/logMessage lines.
type logWriter struct {
	win    *window
	ctx    context.Context
	prefix string
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.win.logMessage(w.ctx, protocol.MessageTypeLog, w.prefix+strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// resume starts a new run on prev's session, history and changeset.
func (rn *runner) resume(ctx context.Context, prev *run, settings config.Settings) {
	provider, err := rn.newProvider(ctx, settings)
	if err != nil {
		rn.win.showMessage(ctx, protocol.MessageTypeError, "agent-lsp: "+err.Error())
		return
	}
	prev.mu.Lock()
	ws, notes := prev.ws, prev.notes
	prev.mu.Unlock()
	r := newRun(prev.session, prev.request, prev.task, settings, prev.history)
	// The history says which notes were proposed: they go on waiting with the run.
	r.ws, r.notes, r.continued, r.folder = ws, notes, true, prev.folder
	rn.runs.add(r, false)
	rn.win.logMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("agent-lsp: %s continues %s on %s", r.name(), prev.name(), provider.Name()))
	rn.start(r, provider)
}

// view opens a run's view of the folders, starting in start, with its
// commands' sandbox: the network where the user's own config opts in,
// root by root. A folder gone from disk is left out (and said so), so that
// it keeps no run from starting elsewhere.
func (rn *runner) view(ctx context.Context, folders []*folder, start *folder, settings config.Settings) (*tools.Workspace, error) {
	var roots []tools.Root
	current := 0
	for _, f := range folders {
		if fi, err := os.Stat(f.dir); f != start && (err != nil || !fi.IsDir()) {
			rn.win.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("agent-lsp: workspace folder %s (%s) is left out of this run: it is no directory now", f.name, f.dir))
			continue
		}
		if f == start {
			current = len(roots)
		}
		roots = append(roots, tools.Root{Name: f.name, Dir: f.dir})
	}
	return agentrun.OpenView(roots, current, rn.docs, settings, rn.env("HOME"))
}

type cancelResult struct {
	Cancelled []string `json:"cancelled"`
}

func (rn *runner) cancel(_ context.Context, a idArgs) (cancelResult, error) {
	cancelled, err := rn.runs.cancel(a.ID)
	return cancelResult{Cancelled: cancelled}, err
}
