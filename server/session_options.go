package server

import (
	"context"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/agent"
)

// sessionOptions are what the client chose for its conversations
// (agent.setSessionOptions: the model and how hard it thinks), over the
// configured settings from the next run on (agent.ask's own model wins),
// and the context meter of the latest model call, for agent.status.
type sessionOptions struct {
	mu              sync.Mutex // guards the fields below
	model, thinking string     // "" follows the settings
	used, size      int        // the latest model call's tokens in context, of its window
}

type setSessionOptionsArgs struct {
	Model    *string `json:"model,omitempty"`
	Thinking *string `json:"thinking,omitempty"`
}

type sessionOptionsResult struct {
	Model    string `json:"model"`
	Thinking string `json:"thinking"`
}

// contextStatus is agent.status's meter: how full the model's window was
// at the latest model call.
type contextStatus struct {
	Used int `json:"used"`
	Size int `json:"size"`
}

// thinkingLevels are the values of thinking; "" (or "default") is the model's own.
var thinkingLevels = []string{"minimal", "low", "medium", "high"}

// setSessionOptions is agent.setSessionOptions: a field left out keeps its
// value, "" returns it to the settings; an unknown thinking level is an error.
func (o *sessionOptions) setSessionOptions(_ context.Context, a setSessionOptionsArgs) (sessionOptionsResult, error) {
	if a.Thinking != nil {
		t := strings.TrimPrefix(*a.Thinking, "default")
		if t != "" && !slices.Contains(thinkingLevels, t) {
			return sessionOptionsResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, "agent.setSessionOptions: thinking must be default, "+strings.Join(thinkingLevels, ", "))
		}
		o.mu.Lock()
		o.thinking = t
		o.mu.Unlock()
	}
	if a.Model != nil {
		o.mu.Lock()
		o.model = strings.TrimSpace(*a.Model)
		o.mu.Unlock()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return sessionOptionsResult{Model: o.model, Thinking: o.thinking}, nil
}

// chosen is the client's model and thinking ("" where it chose none).
func (o *sessionOptions) chosen() (model, thinking string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.model, o.thinking
}

// observe keeps the meter of a model call (an agent.EventUsage).
func (o *sessionOptions) observe(e agent.Event) {
	if e.Kind != agent.EventUsage {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.used, o.size = e.Context, e.Window
}

func (o *sessionOptions) meter() *contextStatus {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.size == 0 {
		return nil
	}
	return &contextStatus{Used: o.used, Size: o.size}
}
