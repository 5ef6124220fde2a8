package llm

import "context"

// Price is what a model's provider charges, in US dollars per million
// tokens: input, cached input, output (reasoning tokens are output). The
// list prices are the catalog's (llm/catalog); config's [prices] overrides.
type Price struct {
	Input, Cached, Output float64
}

// Priced has p's answers carry price (Response.Price), for a meter of what
// a session spends.
func Priced(p Provider, price Price) Provider { return pricedProvider{p, price} }

type pricedProvider struct {
	Provider
	price Price
}

func (p pricedProvider) Chat(ctx context.Context, req Request) (Response, error) {
	resp, err := p.Provider.Chat(ctx, req)
	if err == nil {
		price := p.price
		resp.Price = &price
	}
	return resp, err
}

// Cost is what u costs at p, in US dollars.
func (p Price) Cost(u Usage) float64 {
	cached := min(u.CachedTokens, u.InputTokens)
	return (float64(u.InputTokens-cached)*p.Input + float64(cached)*p.Cached + float64(u.OutputTokens)*p.Output) / 1e6
}
