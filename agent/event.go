package agent

import (
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
)

// EventKind says what happened in a run.
type EventKind int

const (
	// EventStart: the run began; Text is the task.
	EventStart EventKind = iota
	// EventIteration: a THINK step is about to call the model.
	EventIteration
	// EventTextDelta: streamed model text.
	EventTextDelta
	// EventReasoningDelta: streamed model reasoning (thought summaries,
	// reasoning_content): shown, never part of the answer or the history.
	EventReasoningDelta
	// EventThought: the model answered; Text is its full text, Calls its tool
	// calls, Reasoning what it reported of its thinking.
	EventThought
	// EventToolCall: a tool is about to run.
	EventToolCall
	// EventToolResult: a tool finished; Result is its observation.
	EventToolResult
	// EventNotice: something the user should know that is not a step (a
	// fallback, a retry); Text says what.
	EventNotice
	// EventPlan: a plan was made or remade; Text lists its steps.
	EventPlan
	// EventDone: the run ended with an answer in Text.
	EventDone
	// EventFailed: the run ended with Err.
	EventFailed
	// EventUsage: a model call ended; Usage is its tokens, Price what the
	// model that answered charges (nil: not known), Context how many tokens
	// the conversation now takes of the Window (the provider's count where
	// it gave one, else the estimate the budget keeps).
	EventUsage
	// EventToolOutput: a running tool printed Text (a command's output, as
	// it comes); display only: the result is what the model gets.
	EventToolOutput
)

// Event is one step of a run, for the CLI's trace and the server's progress.
// Handlers run on the loop's goroutine (or a tool's, for concurrent tool
// calls) and must be quick and safe for concurrent use.
type Event struct {
	Kind EventKind
	// Scope names the part of a larger run an event belongs to ("step 2/3",
	// "trial 1/3", "sub-agent 2"); empty for a plain run.
	Scope         string
	Iteration     int
	MaxIterations int
	Text          string
	Reasoning     string
	Calls         []llm.ToolCall
	Call          llm.ToolCall
	Result        llm.ToolResult
	Err           error
	Usage         llm.Usage
	Price         *llm.Price
	Context       int
	Window        int
}

// CallSummary is a call's title as its tool presents it (tools.Show:
// "Edit main.go", "Run `go test`"), cut for a progress line, escaped.
func CallSummary(c llm.ToolCall) string {
	title := tools.Show(c.Name, c.Args, nil).Title
	if r := []rune(title); len(r) > 80 {
		title = string(r[:79]) + "…"
	}
	return title
}
