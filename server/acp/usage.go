package acp

import (
	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm"
)

// The context meter: after each model call the client is told how much of
// the model's window the conversation takes (usage_update), and what the
// session has cost so far where the answering models' prices are known
// (config.Settings.ModelPrice, priced per tier by the provider chain).

// addCost adds a model call's cost at price (nil: not known) to the
// session's and returns the total; false when the session's spending is
// not known (a call of an unpriced model, now or before, leaves it unknown).
func (s *session) addCost(price *llm.Price, u llm.Usage) (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if price == nil {
		s.unpriced = true
	} else {
		s.spent += price.Cost(u)
	}
	return s.spent, !s.unpriced
}

// usage sends the meter after a model call (e is an agent.EventUsage).
func (t *turn) usage(e agent.Event) {
	u := sdk.SessionUsageUpdate{Used: e.Context, Size: e.Window}
	if spent, ok := t.s.addCost(e.Price, e.Usage); ok {
		u.Cost = &sdk.Cost{Amount: spent, Currency: "USD"}
	}
	t.send(sdk.SessionUpdate{UsageUpdate: &u})
}
