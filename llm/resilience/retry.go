// Package resilience keeps a run going when providers fail: retry with
// backoff for transient errors, a circuit breaker per provider, and a
// fallback chain across providers. Each is an llm.Provider wrapping another,
// composed in one place (Chain). Retrying is decided here and only here: the
// SDKs are built not to retry on their own.
package resilience

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/agent-lsp/agent-lsp/llm"
)

// The retries' defaults, which the settings table (retry_attempts,
// retry_base_ms) declares as its own.
const (
	DefaultMaxAttempts = 5           // waits of 1, 2, 4 and 8 s
	DefaultBase        = time.Second // doubled each retry
	// maxWaits is the longest computed wait by default, in Bases: the
	// last of DefaultMaxAttempts' waits.
	maxWaits = 8
)

// RetryOptions shape the backoff. Zero values take the defaults.
type RetryOptions struct {
	MaxAttempts    int           // tries in all, default DefaultMaxAttempts
	Base           time.Duration // first wait, default DefaultBase; doubled each retry
	Max            time.Duration // longest computed wait, default 8 Bases
	MaxRetryAfter  time.Duration // cap on a server's Retry-After, default 30 s
	AttemptTimeout time.Duration // one try's limit (a hanging server), default 2 min
	// Jitter returns a number in [0, 1); the wait is scaled by 0.8 + 0.4*Jitter().
	Jitter func() float64
}

func (o RetryOptions) withDefaults() RetryOptions {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.Base <= 0 {
		o.Base = DefaultBase
	}
	if o.Max <= 0 {
		o.Max = maxWaits * o.Base
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = 30 * time.Second
	}
	if o.AttemptTimeout <= 0 {
		o.AttemptTimeout = 2 * time.Minute
	}
	if o.Jitter == nil {
		o.Jitter = rand.Float64
	}
	return o
}

// Retry retries transient failures (429, 408, 5xx, timeouts, reset or refused
// connections) with exponential backoff and jitter, honouring Retry-After.
// It never retries 400, 401/403 or context-too-long. Cancelling ctx ends a
// wait at once.
func Retry(p llm.Provider, o RetryOptions) llm.Provider {
	return &retrying{p: p, o: o.withDefaults()}
}

type retrying struct {
	p llm.Provider
	o RetryOptions
}

func (r *retrying) Name() string { return r.p.Name() }

func (r *retrying) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	var err error
	for attempt := 1; ; attempt++ {
		var resp llm.Response
		resp, err = r.try(ctx, req)
		if err == nil || ctx.Err() != nil || !llm.Transient(err) || attempt == r.o.MaxAttempts {
			return resp, err
		}
		wait := r.backoff(attempt, err)
		llm.Notify(ctx, fmt.Sprintf("%v; retry %d/%d in %s", err, attempt, r.o.MaxAttempts-1, wait.Round(100*time.Millisecond)))
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return llm.Response{}, ctx.Err()
		case <-timer.C:
		}
	}
}

// try is one attempt under its own time limit; running out of it is a
// transient timeout, unlike the caller's own cancellation.
func (r *retrying) try(ctx context.Context, req llm.Request) (llm.Response, error) {
	attemptCtx, cancel := context.WithTimeout(ctx, r.o.AttemptTimeout)
	defer cancel()
	resp, err := r.p.Chat(attemptCtx, req)
	if err != nil && ctx.Err() == nil && attemptCtx.Err() != nil {
		return resp, &llm.Error{Kind: llm.KindTimeout, Provider: r.p.Name(),
			Message: fmt.Sprintf("no answer within %s", r.o.AttemptTimeout), Err: err}
	}
	return resp, err
}

// backoff is 1 s, 2 s, 4 s, 8 s… with ±20 % jitter, or the server's
// Retry-After (capped) when it gave one.
func (r *retrying) backoff(attempt int, err error) time.Duration {
	var e *llm.Error
	if errors.As(err, &e) && e.RetryAfter > 0 {
		return min(e.RetryAfter, r.o.MaxRetryAfter)
	}
	d := r.o.Base << (attempt - 1)
	if d > r.o.Max || d <= 0 {
		d = r.o.Max
	}
	return time.Duration(float64(d) * (0.8 + 0.4*r.o.Jitter()))
}
