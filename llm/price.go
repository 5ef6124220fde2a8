package llm

import (
	"context"
	"strings"
)

// Price is what a model's provider charges, in US dollars per million
// tokens: input, cached input, output (reasoning tokens are output).
type Price struct {
	Input, Cached, Output float64
}

// prices are the providers' published list prices for their hosted models
// (OpenAI's and Gemini's, standard tier, prompts up to 200k tokens), by
// model name; a dated snapshot ("gpt-4.1-mini-2025-04-14") is its model's.
// Where a cached rate is not listed here it is the input rate, so the sum
// errs high. Models served anywhere else have no known price.
var prices = map[string]Price{
	"gpt-5":                 {1.25, 0.125, 10},
	"gpt-5-mini":            {0.25, 0.025, 2},
	"gpt-5-nano":            {0.05, 0.005, 0.40},
	"gpt-4.1":               {2, 0.50, 8},
	"gpt-4.1-mini":          {0.40, 0.10, 1.60},
	"gpt-4.1-nano":          {0.10, 0.025, 0.40},
	"gpt-4o":                {2.50, 1.25, 10},
	"gpt-4o-mini":           {0.15, 0.075, 0.60},
	"o3":                    {2, 0.50, 8},
	"o4-mini":               {1.10, 0.275, 4.40},
	"gemini-2.5-pro":        {1.25, 1.25, 10},
	"gemini-2.5-flash":      {0.30, 0.30, 2.50},
	"gemini-2.5-flash-lite": {0.10, 0.10, 0.40},
}

// PriceOf is model's price, found by its name or the longest listed name it
// starts with followed by "-"; false when the price is not known.
func PriceOf(model string) (Price, bool) {
	if p, ok := prices[model]; ok {
		return p, true
	}
	best, found := "", false
	for name := range prices {
		if strings.HasPrefix(model, name+"-") && len(name) > len(best) {
			best, found = name, true
		}
	}
	return prices[best], found
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
