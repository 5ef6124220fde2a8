package acp

import (
	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
)

// The context meter: after each model call the client is told how much of
// the model's window the conversation takes (usage_update), and what the
// session has cost so far where the provider's prices are known (its
// hosted models; a local or other server's are not).

// priceOf is the price of s's model, when known.
func priceOf(s config.Settings) (llm.Price, bool) {
	if s.BaseURL != "" {
		return llm.Price{}, false
	}
	return llm.PriceOf(s.Model)
}

// addCost adds a model call's cost to the session's and returns the total;
// false when the session's spending is not known (a call of an unpriced
// model, now or before, leaves it unknown).
func (s *session) addCost(price llm.Price, priced bool, u llm.Usage) (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !priced {
		s.unpriced = true
	}
	s.spent += price.Cost(u)
	return s.spent, !s.unpriced
}

// usage sends the meter after a model call (e is an agent.EventUsage).
func (t *turn) usage(e agent.Event) {
	u := sdk.SessionUsageUpdate{Used: e.Context, Size: e.Window}
	if spent, ok := t.s.addCost(t.price, t.priced, e.Usage); ok {
		u.Cost = &sdk.Cost{Amount: spent, Currency: "USD"}
	}
	t.send(sdk.SessionUpdate{UsageUpdate: &u})
}
