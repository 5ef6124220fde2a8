// Package agent runs the ReAct loop: THINK (call the model with the history and
// the tool specs), ACT (run the tools it asked for), OBSERVE (append the
// results), until the model ends its turn. It knows nothing of LSP or of any
// one provider; it reports its steps as Events.
package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sourcegraph/conc/pool"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
)

// DefaultMaxIterations bounds a run when the config says nothing; the
// settings table's max_iterations declares it as its own default.
const DefaultMaxIterations = 10

// maxContinuations bounds how often a reply cut by max_tokens is continued.
const maxContinuations = 2

// Errors a run can end with, wrapped with the details.
var (
	ErrIterationLimit = errors.New("iteration limit reached")
	// ErrTooManyMistakes: the model broke the tool protocol too often in a row.
	ErrTooManyMistakes = errors.New("too many malformed answers in a row")
	// ErrLoop: the same tool call kept giving the same result.
	ErrLoop = errors.New("the agent is going in circles")
)

// formatFeedback starts the message that answers a malformed answer.
const formatFeedback = "Your last answer could not be used: "

// Defaults for the guards.
const (
	DefaultMaxMistakes = 3
	loopWindow         = 10 // steps looked back at
	loopRepeats        = 3  // same call, same result, this often: a loop
)

// Config assembles an Agent.
type Config struct {
	Provider llm.Provider
	Tools    *tools.Registry
	// Source offers more tools found while the run goes on (MCP servers'),
	// asked before each model call; nil for none.
	Source        ToolSource
	System        string
	MaxIterations int
	// MaxMistakes bounds consecutive malformed answers (default 3).
	MaxMistakes int
	// ContextWindow is the model's window in tokens; 0 takes
	// DefaultContextWindow of the provider's model.
	ContextWindow int
	// Stream asks the provider for text deltas (EventTextDelta).
	Stream bool
	// OnEvent receives every step; nil discards them.
	OnEvent func(Event)
}

// Agent runs tasks. It holds no per-run state, so one Agent may run several
// histories at once.
type Agent struct {
	cfg   Config
	specs []llm.ToolSpec
}

// New builds an agent; the tool specs are computed once here.
func New(cfg Config) *Agent {
	if cfg.MaxIterations <= 0 {
		cfg.MaxIterations = DefaultMaxIterations
	}
	if cfg.MaxMistakes <= 0 {
		cfg.MaxMistakes = DefaultMaxMistakes
	}
	a := &Agent{cfg: cfg}
	if cfg.Tools != nil {
		for _, t := range cfg.Tools.Tools() {
			a.specs = append(a.specs, llm.ToolSpec{Name: t.Name(), Description: t.Description(), Schema: t.Schema()})
		}
	}
	return a
}

// Outcome is a finished run.
type Outcome struct {
	Answer     string
	Iterations int
	Usage      llm.Usage
}

// showOutput has c's output (a command's, as it prints) reported as
// EventToolOutput while it runs.
func (a *Agent) showOutput(ctx context.Context, iteration int, c llm.ToolCall) context.Context {
	if a.cfg.OnEvent == nil {
		return ctx
	}
	return tools.WithOutput(ctx, func(p []byte) {
		a.emit(Event{Kind: EventToolOutput, Iteration: iteration, MaxIterations: a.cfg.MaxIterations, Call: c, Text: string(p)})
	})
}

func (a *Agent) emit(e Event) {
	if a.cfg.OnEvent != nil {
		a.cfg.OnEvent(e)
	}
}

// Run appends task to h and loops until the model ends its turn, the iteration
// cap is reached (an error wrapping ErrIterationLimit), the provider fails, or
// ctx is cancelled (ctx.Err(), with running commands killed). h keeps the
// whole exchange either way, so a follow-up can continue it.
func (a *Agent) Run(ctx context.Context, h *History, task string) (Outcome, error) {
	return a.run(ctx, h, llm.Message{Role: llm.RoleUser, Text: task})
}

// run is Run with the task as a user message (its images with it).
func (a *Agent) run(ctx context.Context, h *History, task llm.Message) (Outcome, error) {
	a.emit(Event{Kind: EventStart, Text: task.Text})
	h.msgs = append(h.msgs, task)
	return a.finish(a.loop(ctx, h, h.Len()-1))
}

// Continue resumes a run that stopped on a failure (a provider error, say)
// from where its history ends, without adding a message: after the user chose
// to retry or to switch models.
func (a *Agent) Continue(ctx context.Context, h *History) (Outcome, error) {
	a.emit(Event{Kind: EventNotice, Text: "continuing the interrupted run"})
	task := 0
	for i := h.Len() - 1; i >= 0; i-- {
		if m := h.msgs[i]; m.Role == llm.RoleUser && !strings.HasPrefix(m.Text, formatFeedback) {
			task = i
			break
		}
	}
	return a.finish(a.loop(ctx, h, task))
}

func (a *Agent) finish(out Outcome, err error) (Outcome, error) {
	if err != nil {
		a.emit(Event{Kind: EventFailed, Err: err, Iteration: out.Iterations, MaxIterations: a.cfg.MaxIterations})
		return out, err
	}
	a.emit(Event{Kind: EventDone, Text: out.Answer, Iteration: out.Iterations, MaxIterations: a.cfg.MaxIterations})
	return out, nil
}

// loopState is what the loop carries from one iteration to the next.
type loopState struct {
	ts   *toolset
	req  llm.Request
	b    *budget
	task int // the task message's index, which compaction keeps verbatim
	// continuations of an answer cut at the output limit, malformed
	// answers in a row, and the recent steps (loop detection).
	continuations, mistakes int
	recent                  []step
}

// loop runs THINK/ACT/OBSERVE on h; task is the index of the task message,
// which compaction keeps verbatim.
func (a *Agent) loop(ctx context.Context, h *History, task int) (Outcome, error) {
	var out Outcome
	ctx, st := a.newLoop(ctx, task)
	for i := 1; i <= a.cfg.MaxIterations; i++ {
		out.Iterations = i
		resp, err := a.think(ctx, i, h, st)
		if err != nil {
			return out, err
		}
		out.Usage.Add(resp.Usage)
		if resp.FormatError != "" {
			if err := a.malformed(i, h, st, resp); err != nil {
				return out, err
			}
			continue
		}
		st.mistakes = 0
		h.AddAssistant(resp)
		a.emit(Event{Kind: EventThought, Iteration: i, MaxIterations: a.cfg.MaxIterations, Text: resp.Text, Reasoning: resp.Reasoning, Calls: resp.ToolCalls})
		if len(resp.ToolCalls) == 0 {
			if resp.StopReason == llm.StopMaxTokens && st.continuations < maxContinuations {
				st.continuations++
				out.Answer += resp.Text
				h.AddUser("Your reply was cut off by the output token limit. Continue exactly where it stopped.")
				continue
			}
			out.Answer += resp.Text
			return out, nil
		}
		if err := a.actOn(ctx, i, h, st, resp.ToolCalls); err != nil {
			return out, err
		}
	}
	return out, fmt.Errorf("%w: the model still wanted tools after %d iterations (raise max_iterations or narrow the task)", ErrIterationLimit, a.cfg.MaxIterations)
}

// newLoop is the loop's state at its start: the tools, the request with
// its streaming callbacks, the context budget; ctx carries the
// providers' notices to the events.
func (a *Agent) newLoop(ctx context.Context, task int) (context.Context, *loopState) {
	ts := &toolset{reg: a.cfg.Tools, specs: a.specs}
	st := &loopState{ts: ts, req: llm.Request{System: a.cfg.System, Tools: ts.specs}, task: task}
	window := a.cfg.ContextWindow
	if window <= 0 {
		window = DefaultContextWindow(a.cfg.Provider.Name())
	}
	st.b = newBudget(window, a.cfg.System, ts.specs)
	if a.cfg.Stream && a.cfg.OnEvent != nil {
		st.req.OnText = func(delta string) { a.emit(Event{Kind: EventTextDelta, Text: delta}) }
	}
	if a.cfg.OnEvent != nil {
		ctx = llm.WithNotify(ctx, func(msg string) { a.emit(Event{Kind: EventNotice, Text: msg}) })
		st.req.OnReasoning = func(delta string) { a.emit(Event{Kind: EventReasoningDelta, Text: delta}) }
	}
	return ctx, st
}

// think is iteration i's THINK: the tools refreshed, the history fitted
// to the context, the model asked (once more after a hard compaction when
// the context was too long after all), and what it used counted.
func (a *Agent) think(ctx context.Context, i int, h *History, st *loopState) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	a.emit(Event{Kind: EventIteration, Iteration: i, MaxIterations: a.cfg.MaxIterations})
	if next := a.refresh(ctx, st.ts, func(msg string) {
		a.emit(Event{Kind: EventNotice, Iteration: i, MaxIterations: a.cfg.MaxIterations, Text: msg})
	}); next != st.ts {
		st.ts, st.req.Tools = next, next.specs
		st.b.setTools(a.cfg.System, st.ts.specs)
	}
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	if err := a.fitContext(ctx, st.b, h, st.task); err != nil {
		return llm.Response{}, err
	}
	if st.b.compactions > 0 {
		st.task = 0 // compaction moved the task to the front
	}
	st.req.Messages = h.Messages()
	resp, err := a.cfg.Provider.Chat(ctx, st.req)
	if err != nil && isContextTooLong(err) {
		// Our estimate was short: compact hard and try once more before
		// giving up on "context too long".
		if ok, cerr := a.compact(ctx, h, st.task, 2); cerr == nil && ok {
			st.task = 0
			st.req.Messages = h.Messages()
			resp, err = a.cfg.Provider.Chat(ctx, st.req)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return llm.Response{}, ctx.Err()
		}
		return llm.Response{}, err
	}
	st.b.observe(st.req.Messages, resp.Usage.InputTokens)
	a.emitUsage(i, st.b, st.req.Messages, resp)
	return resp, nil
}

// malformed feeds a malformed answer back to the model as an observation
// it can correct, until MaxMistakes in a row.
func (a *Agent) malformed(i int, h *History, st *loopState, resp llm.Response) error {
	st.mistakes++
	h.AddAssistant(llm.Response{Text: resp.Text})
	if st.mistakes >= a.cfg.MaxMistakes {
		return fmt.Errorf("%w (%d): %s", ErrTooManyMistakes, st.mistakes, firstLine(resp.FormatError))
	}
	a.emit(Event{Kind: EventNotice, Iteration: i, MaxIterations: a.cfg.MaxIterations, Text: "malformed answer: " + firstLine(resp.FormatError)})
	h.AddUser(formatFeedback + resp.FormatError)
	return nil
}

// actOn is iteration i's ACT and OBSERVE: the calls run, their results in
// h, and the run stopped where the same call keeps giving the same result.
func (a *Agent) actOn(ctx context.Context, i int, h *History, st *loopState, calls []llm.ToolCall) error {
	results, err := a.act(ctx, i, calls, st.b, st.ts.reg)
	if err != nil {
		return err
	}
	h.AddToolResults(results)
	if st.recent = appendSteps(st.recent, calls, results); looping(st.recent) {
		return fmt.Errorf("%w: %s gave the same result %d times; stopping instead of spending tokens (rephrase the task or check the tool's output)",
			ErrLoop, CallSummary(calls[0]), loopRepeats)
	}
	return nil
}

// act runs the calls of one turn. When every call is to a read-only tool they
// run concurrently; otherwise in order, since a write may feed a later read.
// Results keep the calls' order either way.
func (a *Agent) act(ctx context.Context, iteration int, calls []llm.ToolCall, b *budget, reg *tools.Registry) ([]llm.ToolResult, error) {
	results := make([]llm.ToolResult, len(calls))
	run := func(ctx context.Context, i int) error {
		c := calls[i]
		a.emit(Event{Kind: EventToolCall, Iteration: iteration, MaxIterations: a.cfg.MaxIterations, Call: c})
		res, err := reg.Execute(a.showOutput(ctx, iteration, c), c.Name, c.Args)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// An infrastructure failure of one tool is still something the
			// model can work around; the run goes on.
			res = tools.Errorf("%s failed: %v", c.Name, err)
		}
		results[i] = llm.ToolResult{CallID: c.ID, Name: c.Name, Content: b.cutResult(res.Text), IsError: res.IsError}
		a.emit(Event{Kind: EventToolResult, Iteration: iteration, MaxIterations: a.cfg.MaxIterations, Call: c, Result: results[i]})
		return nil
	}
	if len(calls) > 1 && allReadOnly(reg, calls) {
		p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError()
		for i := range calls {
			p.Go(func(ctx context.Context) error { return run(ctx, i) })
		}
		if err := p.Wait(); err != nil {
			return nil, err
		}
		return results, nil
	}
	for i := range calls {
		if err := run(ctx, i); err != nil {
			return nil, err
		}
	}
	return results, nil
}

func allReadOnly(reg *tools.Registry, calls []llm.ToolCall) bool {
	for _, c := range calls {
		t, ok := reg.Lookup(c.Name)
		if !ok || !t.ReadOnly() {
			return false
		}
	}
	return true
}

// step is one executed call and its result, for loop detection.
type step struct{ call, result string }

// appendSteps adds a turn's calls to the window; identical calls of one turn
// count once (they ran side by side, not in a loop).
func appendSteps(recent []step, calls []llm.ToolCall, results []llm.ToolResult) []step {
	turnStart := len(recent)
	for i, c := range calls {
		s := step{call: c.Name + "\x00" + string(c.Args), result: results[i].Content}
		if !slices.Contains(recent[turnStart:], s) {
			recent = append(recent, s)
		}
	}
	if len(recent) > loopWindow {
		recent = append(recent[:0], recent[len(recent)-loopWindow:]...)
	}
	return recent
}

// looping reports whether the newest step occurred loopRepeats times in the window.
func looping(recent []step) bool {
	if len(recent) == 0 {
		return false
	}
	last, n := recent[len(recent)-1], 0
	for _, s := range recent {
		if s == last {
			n++
		}
	}
	return n >= loopRepeats
}
