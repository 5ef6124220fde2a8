package resilience

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/llm"
)

// Tier is one provider of a fallback chain. Degraded marks the last resort (a
// cheaper model), announced plainly when the run moves to it.
type Tier struct {
	Provider llm.Provider
	Degraded bool
}

// AllFailedError is returned when every tier failed; Errs holds each tier's error.
type AllFailedError struct {
	Names []string
	Errs  []error
}

func (e *AllFailedError) Error() string {
	var b strings.Builder
	b.WriteString("every model failed: ")
	for i, err := range e.Errs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(err.Error())
	}
	return b.String()
}

func (e *AllFailedError) Unwrap() []error { return e.Errs }

// Fallback tries its tiers in order. When one fails for good, the same
// request, history and all, goes to the next, and the switch is announced;
// once a tier answers, the run stays on it. Safe for concurrent use; make one
// per run.
type Fallback struct {
	tiers []Tier

	mu      sync.Mutex // guards current
	current int
}

// NewFallback builds a chain; it needs at least one tier.
func NewFallback(tiers ...Tier) *Fallback { return &Fallback{tiers: tiers} }

func (f *Fallback) Name() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tiers[f.current].Provider.Name()
}

func (f *Fallback) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	f.mu.Lock()
	start := f.current
	f.mu.Unlock()
	all := &AllFailedError{}
	for i := start; i < len(f.tiers); i++ {
		t := f.tiers[i]
		resp, err := t.Provider.Chat(ctx, req)
		if err == nil {
			f.mu.Lock()
			f.current = i
			f.mu.Unlock()
			return resp, nil
		}
		if ctx.Err() != nil {
			return resp, ctx.Err()
		}
		all.Names = append(all.Names, t.Provider.Name())
		all.Errs = append(all.Errs, err)
		if i+1 < len(f.tiers) {
			next := f.tiers[i+1]
			msg := fmt.Sprintf("%s failed (%v); switching to %s", t.Provider.Name(), short(err), next.Provider.Name())
			if next.Degraded {
				msg += " — degraded mode: a smaller model; check its work closely"
			}
			llm.Notify(ctx, msg)
		}
	}
	if len(all.Errs) == 1 {
		return llm.Response{}, all.Errs[0]
	}
	return llm.Response{}, all
}

func short(err error) string {
	var e *llm.Error
	if errors.As(err, &e) {
		if e.Status != 0 {
			return fmt.Sprintf("%s, HTTP %d", e.Kind, e.Status)
		}
		return e.Kind.String()
	}
	return err.Error()
}

// Options configure Chain.
type Options struct {
	Retry    RetryOptions
	Breakers *Breakers // shared across runs; nil makes fresh ones
}

// Chain wraps each tier as Retry(Breaker(provider)) and chains them in a
// Fallback: retries happen within a tier, the breaker stops a failing tier
// early, and the fallback moves on.
func Chain(o Options, tiers ...Tier) *Fallback {
	if o.Breakers == nil {
		o.Breakers = NewBreakers(BreakerOptions{})
	}
	wrapped := make([]Tier, len(tiers))
	for i, t := range tiers {
		wrapped[i] = Tier{Provider: Retry(o.Breakers.Wrap(t.Provider), o.Retry), Degraded: t.Degraded}
	}
	return NewFallback(wrapped...)
}
