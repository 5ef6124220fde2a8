package agent

import (
	"context"
	"fmt"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/toolproto"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Strategy names how a task is run.
type Strategy string

const (
	// StrategyReAct is the plain loop.
	StrategyReAct Strategy = "react"
	// StrategyPlan plans first, runs each step as a ReAct sub-run, and replans on failure.
	StrategyPlan Strategy = "plan"
	// StrategyReflexion runs trials judged by checks, learning from each failure.
	StrategyReflexion Strategy = "reflexion"
)

// ParseStrategy accepts "", react, plan or reflexion ("" is react).
func ParseStrategy(s string) (Strategy, error) {
	switch Strategy(s) {
	case "", StrategyReAct:
		return StrategyReAct, nil
	case StrategyPlan, StrategyReflexion:
		return Strategy(s), nil
	}
	return "", fmt.Errorf("unknown strategy %q: use react, plan or reflexion", s)
}

// The strategies' bounds when a Task sets none; the settings table's
// max_replans and max_trials declare them as their own defaults.
const (
	DefaultMaxReplans = 2
	DefaultMaxTrials  = 3
)

// Task is one request to the agent with what every strategy may need.
type Task struct {
	Prompt string
	// Images go with the prompt to a model that sees them (react runs
	// only: plan and reflexion work from the text).
	Images   []llm.Image
	Strategy Strategy
	// History is the session: react runs in it; plan and reflexion run in
	// fresh contexts and add the task and their final answer to it.
	History *History
	// Workspace is the run's view: reflexion resets and restores it between
	// trials, and runs its checks in its sandbox.
	Workspace *tools.Workspace
	// Checks are reflexion's evaluator commands (e.g. "go test ./..."); none
	// means an LLM critique against the task.
	Checks     []string
	MaxReplans int // plan: default DefaultMaxReplans
	MaxTrials  int // reflexion: default DefaultMaxTrials
	// ConfirmPlan, when set, is asked with the plan before any step runs;
	// false ends the run with the plan as its answer and nothing changed.
	ConfirmPlan func(ctx context.Context, plan string) (bool, error)
}

// Do runs t with its strategy.
func (a *Agent) Do(ctx context.Context, t Task) (Outcome, error) {
	switch t.Strategy {
	case StrategyPlan:
		return a.planAndExecute(ctx, t)
	case StrategyReflexion:
		return a.reflexion(ctx, t)
	}
	return a.run(ctx, t.History, llm.Message{Role: llm.RoleUser, Text: t.Prompt, Images: t.Images})
}

// scoped returns a copy of the agent whose events carry scope.
func (a *Agent) scoped(scope string) *Agent {
	b := *a
	if a.cfg.OnEvent != nil {
		parent := a.cfg.OnEvent
		b.cfg.OnEvent = func(e Event) {
			if e.Scope == "" {
				e.Scope = scope
			} else {
				e.Scope = scope + " › " + e.Scope
			}
			parent(e)
		}
	}
	return &b
}

// complete makes one tool-less call to the model for a strategy (a plan, a
// critique, a lesson) and returns its text. (An "ask" is a user's request to
// the agent; this is the agent's own question to the model.)
func (a *Agent) complete(ctx context.Context, system, user string, jsonOutput bool) (string, error) {
	resp, err := a.cfg.Provider.Chat(ctx, llm.Request{
		System:     system,
		Messages:   []llm.Message{{Role: llm.RoleUser, Text: user}},
		JSONOutput: jsonOutput,
	})
	return resp.Text, err
}

// completeJSON asks for a JSON object and decodes it into v, giving the model one
// more chance when the answer does not parse.
func (a *Agent) completeJSON(ctx context.Context, system, user string, v any) error {
	text, err := a.complete(ctx, system, user, true)
	if err != nil {
		return err
	}
	if err = toolproto.DecodeObject(text, v); err == nil {
		return nil
	}
	a.emit(Event{Kind: EventNotice, Text: "malformed JSON answer, asking again: " + err.Error()})
	text, err2 := a.complete(ctx, system, user+"\n\nYour previous answer could not be parsed ("+err.Error()+"). Answer with the JSON object only.", true)
	if err2 != nil {
		return err2
	}
	return toolproto.DecodeObject(text, v)
}

// recordExchange adds a strategy run to the session as one exchange, so a
// follow-up knows what was done. (Not the remember tool: nothing goes to
// the notes.)
func recordExchange(h *History, prompt, answer string) {
	if h == nil {
		return
	}
	h.AddUser(prompt)
	h.AddAssistant(llm.Response{Text: answer})
}
