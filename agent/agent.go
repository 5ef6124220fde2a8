// Package agent runs the ReAct loop: THINK (call the model with the history and
// the tool specs), ACT (run the tools it asked for), OBSERVE (append the
// results), until the model ends its turn. It knows nothing of LSP or of any
// one provider; it reports its steps as Events.
package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/sourcegraph/conc/pool"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
)

// DefaultMaxIterations bounds a run when the config says nothing.
const DefaultMaxIterations = 10

// maxContinuations bounds how often a reply cut by max_tokens is continued.
const maxContinuations = 2

// ErrIterationLimit is wrapped by the error of a run that used all its iterations.
var ErrIterationLimit = errors.New("iteration limit reached")

// Config assembles an Agent.
type Config struct {
	Provider      llm.Provider
	Tools         *tools.Registry
	System        string
	MaxIterations int
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
	a.emit(Event{Kind: EventStart, Text: task})
	h.AddUser(task)
	out, err := a.loop(ctx, h)
	if err != nil {
		a.emit(Event{Kind: EventFailed, Err: err, Iteration: out.Iterations, MaxIterations: a.cfg.MaxIterations})
		return out, err
	}
	a.emit(Event{Kind: EventDone, Text: out.Answer, Iteration: out.Iterations, MaxIterations: a.cfg.MaxIterations})
	return out, nil
}

func (a *Agent) loop(ctx context.Context, h *History) (Outcome, error) {
	var out Outcome
	req := llm.Request{System: a.cfg.System, Tools: a.specs}
	if a.cfg.Stream && a.cfg.OnEvent != nil {
		req.OnText = func(delta string) { a.emit(Event{Kind: EventTextDelta, Text: delta}) }
	}
	continuations := 0
	for i := 1; i <= a.cfg.MaxIterations; i++ {
		out.Iterations = i
		if err := ctx.Err(); err != nil {
			return out, err
		}
		// THINK
		a.emit(Event{Kind: EventIteration, Iteration: i, MaxIterations: a.cfg.MaxIterations})
		req.Messages = h.Messages()
		resp, err := a.cfg.Provider.Chat(ctx, req)
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			return out, err
		}
		out.Usage.InputTokens += resp.Usage.InputTokens
		out.Usage.OutputTokens += resp.Usage.OutputTokens
		h.AddAssistant(resp)
		a.emit(Event{Kind: EventThought, Iteration: i, MaxIterations: a.cfg.MaxIterations, Text: resp.Text, Calls: resp.ToolCalls})
		if len(resp.ToolCalls) == 0 {
			if resp.StopReason == llm.StopMaxTokens && continuations < maxContinuations {
				continuations++
				out.Answer += resp.Text
				h.AddUser("Your reply was cut off by the output token limit. Continue exactly where it stopped.")
				continue
			}
			out.Answer += resp.Text
			return out, nil
		}
		// ACT and OBSERVE
		results, err := a.act(ctx, i, resp.ToolCalls)
		if err != nil {
			return out, err
		}
		h.AddToolResults(results)
	}
	return out, fmt.Errorf("%w: the model still wanted tools after %d iterations (raise --max-iterations or narrow the task)", ErrIterationLimit, a.cfg.MaxIterations)
}

// act runs the calls of one turn. When every call is to a read-only tool they
// run concurrently; otherwise in order, since a write may feed a later read.
// Results keep the calls' order either way.
func (a *Agent) act(ctx context.Context, iteration int, calls []llm.ToolCall) ([]llm.ToolResult, error) {
	results := make([]llm.ToolResult, len(calls))
	run := func(ctx context.Context, i int) error {
		c := calls[i]
		a.emit(Event{Kind: EventToolCall, Iteration: iteration, MaxIterations: a.cfg.MaxIterations, Call: c})
		res, err := a.cfg.Tools.Execute(ctx, c.Name, c.Args)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// An infrastructure failure of one tool is still something the
			// model can work around; the run goes on.
			res = tools.Errorf("%s failed: %v", c.Name, err)
		}
		results[i] = llm.ToolResult{CallID: c.ID, Name: c.Name, Content: res.Text, IsError: res.IsError}
		a.emit(Event{Kind: EventToolResult, Iteration: iteration, MaxIterations: a.cfg.MaxIterations, Call: c, Result: results[i]})
		return nil
	}
	if len(calls) > 1 && a.allReadOnly(calls) {
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

func (a *Agent) allReadOnly(calls []llm.ToolCall) bool {
	for _, c := range calls {
		t, ok := a.cfg.Tools.Lookup(c.Name)
		if !ok || !t.ReadOnly() {
			return false
		}
	}
	return true
}
