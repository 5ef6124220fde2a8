package main

import (
	"context"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/gemini"
	"github.com/agent-lsp/agent-lsp/llm/openai"
	"github.com/agent-lsp/agent-lsp/llm/resilience"
	"github.com/agent-lsp/agent-lsp/llm/toolproto"
)

// providers builds each run's model client: the configured model, then its
// fallbacks and the degraded tier, each behind retry and a circuit breaker
// that lives as long as the process (so its state means something).
type providers struct {
	breakers *resilience.Breakers
}

func newProviders() *providers {
	return &providers{breakers: resilience.NewBreakers(resilience.BreakerOptions{})}
}

// New builds the chain; settings must have passed Validate.
func (ps *providers) New(ctx context.Context, s config.Settings) (llm.Provider, error) {
	primary, err := pricedProvider(ctx, s)
	if err != nil {
		return nil, err
	}
	tiers := []resilience.Tier{{Provider: primary}}
	for _, b := range s.Backups() {
		m, err := config.ParseModelRef(b.Ref)
		if err != nil {
			return nil, err
		}
		p, err := pricedProvider(ctx, s.For(m))
		if err != nil {
			return nil, err
		}
		tiers = append(tiers, resilience.Tier{Provider: p, Degraded: b.Degraded})
	}
	retry := resilience.RetryOptions{MaxAttempts: s.Retries(), Base: s.RetryBase()}
	return resilience.Chain(resilience.Options{Retry: retry, Breakers: ps.breakers}, tiers...), nil
}

// constructors builds one model on its SDK, keyed by the SDK names of
// config.Providers (every other known provider is on OpenAI's): adding an
// SDK is one entry here (and its name there).
var constructors = map[string]func(context.Context, config.Settings, config.Wire) (llm.Provider, error){
	config.ProviderOpenAI: func(_ context.Context, s config.Settings, w config.Wire) (llm.Provider, error) {
		return openai.New(openai.Config{Model: s.Model, APIKey: w.Key, BaseURL: w.BaseURL, Thinking: s.Thinking})
	},
	config.ProviderGemini: func(ctx context.Context, s config.Settings, w config.Wire) (llm.Provider, error) {
		return gemini.New(ctx, gemini.Config{Model: s.Model, APIKey: w.Key, BaseURL: w.BaseURL, Thinking: s.Thinking})
	},
}

// pricedProvider is baseProvider whose answers carry its price where known,
// so that a fallback's calls are counted at the fallback's.
func pricedProvider(ctx context.Context, s config.Settings) (llm.Provider, error) {
	p, err := baseProvider(ctx, s)
	if price, known := s.ModelPrice(); known && err == nil {
		p = llm.Priced(p, price)
	}
	return p, err
}

// baseProvider is one model on its SDK, speaking its tool protocol.
func baseProvider(ctx context.Context, s config.Settings) (llm.Provider, error) {
	w, err := s.Wire()
	if err != nil {
		return nil, err
	}
	p, err := constructors[w.SDK](ctx, s, w)
	if err != nil {
		return nil, err
	}
	if s.ToolProtocol == "" || s.ToolProtocol == toolproto.Native {
		return p, nil
	}
	if s.ToolProtocol == toolproto.Auto {
		return toolproto.AutoWrap(p), nil
	}
	proto, err := toolproto.ByName(s.ToolProtocol)
	if err != nil {
		return nil, err
	}
	return toolproto.Wrap(p, proto), nil
}

// NewInfiller builds the completion model's client (settings.Completion):
// fill-in-the-middle on /v1/completions where an OpenAI-compatible server
// has it, a chat prompt for OpenAI's own API (no FIM for its chat models)
// and Gemini, or as configured. No retries: a late suggestion is a useless one.
func (ps *providers) NewInfiller(ctx context.Context, s config.Settings) (llm.Infiller, error) {
	t := s.CompletionTarget()
	fim := s.Completion.FIM
	chat := fim == "chat" || t.Provider != config.ProviderOpenAI || ((fim == "" || fim == "auto") && t.BaseURL == "")
	if !chat {
		return openai.New(openai.Config{Model: t.Model, APIKey: t.OpenAIKey, BaseURL: t.BaseURL, FIM: fim})
	}
	p, err := baseProvider(ctx, t)
	if err != nil {
		return nil, err
	}
	return llm.ChatInfiller(p), nil
}

// NewNES builds the next-edit model's client (settings.NES): a chat call on
// its provider, whichever format the prompt takes. No retries: a late
// suggestion is a useless one.
func (ps *providers) NewNES(ctx context.Context, s config.Settings) (llm.Provider, error) {
	return baseProvider(ctx, s.NESTarget())
}
