package agentrun

import (
	"context"
	"errors"
	"fmt"

	"github.com/agent-lsp/agent-lsp/agent"
)

// Ending is how a run ended, decided here once for every wire: what the
// user is shown, whether the staged changes are offered, and what the
// conversation's next turn is told (Do sets the aside).
type Ending string

const (
	// Answered: the model ended its turn. The answer and the proposal are offered.
	Answered Ending = "answered"
	// Stopped: the loop stopped itself (the iteration cap, going in
	// circles, broken answers). The answer so far, StopNote and the
	// proposal are offered: what was staged is worth a review.
	Stopped Ending = "stopped"
	// Cancelled: the user cancelled. The staged changes are dropped, and
	// the next turn is told so.
	Cancelled Ending = "cancelled"
	// Failed: the provider or the run failed. The staged changes are
	// dropped unless the wire continues the run on them (the language
	// server's Retry), and the next turn is told they were.
	Failed Ending = "failed"
)

// endingOf classifies a run that returned err under ctx.
func endingOf(ctx context.Context, err error) Ending {
	switch {
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return Cancelled
	case err == nil:
		return Answered
	case errors.Is(err, agent.ErrIterationLimit) || errors.Is(err, agent.ErrLoop) || errors.Is(err, agent.ErrTooManyMistakes):
		return Stopped
	}
	return Failed
}

// Offers reports whether the wire offers the run's proposal for review.
func (o Outcome) Offers() bool { return o.Ending == Answered || o.Ending == Stopped }

// stopNote is what the user reads after the answer of a run that Stopped:
// why, and how to go on, in words that hold on every wire.
func stopNote(err error, maxIterations int) string {
	if errors.Is(err, agent.ErrIterationLimit) {
		return fmt.Sprintf("agent-lsp: stopped at the iteration cap (%d model calls) before the model finished; what it staged so far is offered. Raise max_iterations for a longer run.",
			maxIterations)
	}
	return "agent-lsp: stopped: " + err.Error()
}
