package agentrun

import (
	"context"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
)

// Compact has the model summarise the older turns of h now (a client's
// /compact), as a run does by itself when the context fills up; false when
// the conversation is too short to compact.
func Compact(ctx context.Context, s config.Settings, p llm.Provider, h *agent.History) (bool, error) {
	return agent.New(agent.Config{Provider: p, ContextWindow: s.Window()}).Compact(ctx, h)
}
