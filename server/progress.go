package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/agent"
)

// streamThrottle is how often streamed text may update a progress: models
// stream many deltas a second, the editor needs a few updates.
const streamThrottle = 100 * time.Millisecond

// progressTracker reports work-done progress, as gopls's progress.Tracker
// does: it creates each token, owns the throttling of streamed text, and
// maps a token the user cancelled back to what it reports on.
type progressTracker struct {
	client protocol.Client
	log    *slog.Logger

	mu         sync.Mutex // guards supported and inProgress
	supported  bool       // the client said window.workDoneProgress
	inProgress map[string]*workDone
}

func newProgressTracker(log *slog.Logger) *progressTracker {
	return &progressTracker{log: log, inProgress: map[string]*workDone{}}
}

func (t *progressTracker) setClient(client protocol.Client) { t.client = client }

func (t *progressTracker) setSupported(supported bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.supported = supported
}

// start creates and begins a cancellable progress for name ("run-3",
// token "agent-lsp/run-3"). It is created even when ctx is already
// cancelled, so what was cancelled this early still shows and ends, rather
// than never ending. A client without work-done progress (or one that
// refuses the token) gets a short message at the start and the end, and
// the reports in its log.
func (t *progressTracker) start(ctx context.Context, name, title, message string, cancel func()) *workDone {
	token := "agent-lsp/" + name
	wd := &workDone{tracker: t, name: name, key: token, cancel: cancel, lastShown: time.Now()}
	t.mu.Lock()
	supported := t.supported
	t.mu.Unlock()
	ctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer stop()
	if supported {
		wd.token = protocol.String(token)
		if err := t.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: wd.token}); err != nil {
			t.log.Debug("progress create", "error", err)
			supported = false
		}
	}
	if !supported {
		wd.plain = true
		wd.notify(ctx, fmt.Sprintf("agent-lsp: %s started: %s (the code action \"Cancel agent run\" stops it)", name, message))
		return wd
	}
	t.mu.Lock()
	t.inProgress[token] = wd
	t.mu.Unlock()
	yes := true
	wd.send(ctx, &protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: &yes, Message: &message})
	return wd
}

// cancel cancels what the progress under token reports on.
func (t *progressTracker) cancel(token string) {
	t.mu.Lock()
	wd := t.inProgress[token]
	t.mu.Unlock()
	if wd != nil && wd.cancel != nil {
		wd.cancel()
	}
}

// workDone is one progress. The step and streamed text build its messages:
// "Iteration 2/10 · read_file hello.py", then the model's text after it.
type workDone struct {
	tracker *progressTracker
	name    string
	key     string
	token   protocol.ProgressToken
	cancel  func()
	plain   bool // no progress: reports go to the log, start and end are messages

	mu         sync.Mutex // guards the fields below
	off        bool       // ended
	step       string
	streamed   string // the model's text so far this iteration
	reasoning  string // its streamed reasoning this iteration
	lastReport time.Time
	lastShown  time.Time // a client without progress: the last step shown as a message
}

// plainStepInterval is how often a client without work-done progress is
// shown a run's step as a message: a few over a long run, not one per
// tool call.
const plainStepInterval = 2 * time.Second

// report reports msg.
func (wd *workDone) report(ctx context.Context, msg string) {
	if wd.plain {
		wd.log(ctx, msg)
		return
	}
	wd.send(ctx, &protocol.WorkDoneProgressReport{Kind: "report", Message: &msg})
}

// event reports an agent event: a new iteration, a tool call, a notice, or
// streamed text (throttled).
func (wd *workDone) event(ctx context.Context, e agent.Event) {
	var msg string
	wd.mu.Lock()
	switch e.Kind {
	case agent.EventIteration:
		wd.step = fmt.Sprintf("Iteration %d/%d", e.Iteration, e.MaxIterations)
		wd.streamed, wd.reasoning = "", ""
		msg = wd.step
	case agent.EventThought:
		// Whatever the throttle held back of the streamed text.
		if e.Text != "" {
			msg = wd.step + " · " + summarize(tail(e.Text, 80), 80)
		}
	case agent.EventToolCall:
		msg = wd.step + " · " + agent.CallSummary(e.Call)
	case agent.EventTextDelta:
		wd.streamed += e.Text
		if time.Since(wd.lastReport) >= streamThrottle {
			msg = wd.step + " · " + summarize(tail(wd.streamed, 80), 80)
		}
	case agent.EventReasoningDelta:
		wd.reasoning += e.Text
		if time.Since(wd.lastReport) >= streamThrottle {
			msg = wd.step + " · thinking: " + summarize(tail(wd.reasoning, 80), 80)
		}
	case agent.EventNotice:
		msg = e.Text
	case agent.EventPlan:
		msg = "Plan: " + summarize(e.Text, 100)
	}
	if msg != "" {
		wd.lastReport = time.Now()
	}
	wd.mu.Unlock()
	if msg == "" {
		return
	}
	if e.Scope != "" {
		msg = e.Scope + " · " + msg
	}
	switch e.Kind {
	case agent.EventIteration, agent.EventToolCall, agent.EventNotice, agent.EventPlan:
		if wd.plain && wd.dueToShow() {
			// Its log is dropped by some (ALE): a step now and then shows
			// the run is alive.
			wd.notify(ctx, "agent-lsp: "+wd.name+": "+msg)
		}
	}
	wd.report(ctx, msg)
}

// dueToShow reports whether a step may be shown as a message now (at most
// one per plainStepInterval), and if so counts it shown.
func (wd *workDone) dueToShow() bool {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if wd.off || time.Since(wd.lastShown) < plainStepInterval {
		return false
	}
	wd.lastShown = time.Now()
	return true
}

// end ends the progress with msg; it reports nothing after.
func (wd *workDone) end(ctx context.Context, msg string) { wd.endSaid(ctx, msg, false) }

// endSaid is end where the caller has already shown msg to the user (in
// the answer's own message): a client without progress gets it in its log
// only, since a second message would replace the answer in clients that
// show one message at a time (Vim's ALE).
func (wd *workDone) endSaid(ctx context.Context, msg string, said bool) {
	switch {
	case wd.plain && said:
		wd.log(ctx, msg)
	case wd.plain:
		wd.notify(ctx, "agent-lsp: "+wd.name+": "+msg)
	default:
		wd.send(ctx, &protocol.WorkDoneProgressEnd{Kind: "end", Message: &msg})
	}
	wd.mu.Lock()
	wd.off = true
	wd.mu.Unlock()
	wd.tracker.mu.Lock()
	delete(wd.tracker.inProgress, wd.key)
	wd.tracker.mu.Unlock()
}

// log writes a report to the log of a client without progress.
func (wd *workDone) log(ctx context.Context, msg string) {
	if wd.ended() {
		return
	}
	if err := wd.tracker.client.LogMessage(ctx, &protocol.LogMessageParams{Type: protocol.MessageTypeInfo, Message: "[" + wd.name + "] " + msg}); err != nil {
		wd.tracker.log.Debug("logMessage", "error", err)
	}
}

// notify shows a start or end message to a client without progress.
func (wd *workDone) notify(ctx context.Context, msg string) {
	if err := wd.tracker.client.ShowMessage(ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: msg}); err != nil {
		wd.tracker.log.Debug("showMessage", "error", err)
	}
}

// ended reports whether the progress ended: nothing is reported after.
func (wd *workDone) ended() bool {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	return wd.off
}

func (wd *workDone) send(ctx context.Context, value any) {
	if wd.ended() {
		return
	}
	raw, err := protocol.Marshal(value)
	if err != nil {
		return
	}
	if err := wd.tracker.client.Progress(ctx, &protocol.ProgressParams{Token: wd.token, Value: raw}); err != nil {
		wd.tracker.log.Debug("progress", "error", err)
	}
}

// workDoneProgressCancel cancels the run whose progress the user cancelled.
func (s *Server) workDoneProgressCancel(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params struct {
		Token json.RawMessage `json:"token"`
	}
	if err := json.Unmarshal(raw, &params); err != nil {
		return nil, err
	}
	s.progress.cancel(strings.Trim(string(params.Token), `"`))
	return nil, nil
}

// tail keeps the last n bytes of s, on a rune boundary.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}
