package resilience

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/llm"
)

// BreakerState is where a circuit is: closed (calls go through), open
// (calls fail fast) or half-open (one trial call goes through).
type BreakerState string

const (
	Closed   BreakerState = "closed"
	Open     BreakerState = "open"
	HalfOpen BreakerState = "half-open"
)

// BreakerOptions: Threshold consecutive failures open the circuit (default
// 5); after Cooldown (default 30 s) one trial call is let through.
type BreakerOptions struct {
	Threshold int
	Cooldown  time.Duration
	Now       func() time.Time
}

// Breaker fails fast while its provider keeps failing. Safe for concurrent
// use; share one per provider across runs so its state means something.
type Breaker struct {
	name string
	o    BreakerOptions

	mu       sync.Mutex // guards the fields below
	p        llm.Provider
	state    BreakerState
	failures int
	openedAt time.Time
	trial    bool // a half-open trial call is in flight
}

// NewBreaker wraps p.
func NewBreaker(p llm.Provider, o BreakerOptions) *Breaker {
	if o.Threshold <= 0 {
		o.Threshold = 5
	}
	if o.Cooldown <= 0 {
		o.Cooldown = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Breaker{name: p.Name(), p: p, o: o, state: Closed}
}

func (b *Breaker) Name() string { return b.name }

// State is closed, open or half-open.
func (b *Breaker) State() BreakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == Open && b.o.Now().Sub(b.openedAt) >= b.o.Cooldown {
		return HalfOpen
	}
	return b.state
}

func (b *Breaker) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	p, err := b.admit()
	if err != nil {
		return llm.Response{}, err
	}
	resp, err := p.Chat(ctx, req)
	b.record(ctx, err)
	return resp, err
}

// admit returns the provider to call, or why not.
func (b *Breaker) admit() (llm.Provider, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == Open && b.o.Now().Sub(b.openedAt) >= b.o.Cooldown {
		b.state = HalfOpen
	}
	switch {
	case b.state == Open:
		return nil, &llm.Error{Kind: llm.KindCircuitOpen, Provider: b.name, Message: fmt.Sprintf(
			"%d failures in a row; not tried again before %s", b.failures, b.openedAt.Add(b.o.Cooldown).Format("15:04:05"))}
	case b.state == HalfOpen && b.trial:
		return nil, &llm.Error{Kind: llm.KindCircuitOpen, Provider: b.name, Message: "a trial call is under way"}
	case b.state == HalfOpen:
		b.trial = true
	}
	return b.p, nil
}

// record counts what says something about the provider's health: not the
// caller's cancellation, nor a request the provider rightly refused.
func (b *Breaker) record(ctx context.Context, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	wasTrial := b.state == HalfOpen && b.trial
	b.trial = false
	healthy := err == nil || ctx.Err() != nil || errors.Is(err, llm.ErrBadRequest) || errors.Is(err, llm.ErrContextTooLong)
	if healthy {
		if err == nil || wasTrial {
			b.state, b.failures = Closed, 0
		}
		return
	}
	b.failures++
	if wasTrial || b.failures >= b.o.Threshold {
		b.state, b.openedAt = Open, b.o.Now()
	}
}

// Breakers keeps one Breaker per provider name for the life of the process.
type Breakers struct {
	o BreakerOptions

	mu     sync.Mutex // guards byName
	byName map[string]*Breaker
}

// NewBreakers returns an empty set.
func NewBreakers(o BreakerOptions) *Breakers {
	return &Breakers{o: o, byName: map[string]*Breaker{}}
}

// Wrap returns the breaker for p's name, creating it around p the first time.
// A breaker made earlier keeps its state but calls the newest p.
func (bs *Breakers) Wrap(p llm.Provider) *Breaker {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b, ok := bs.byName[p.Name()]
	if !ok {
		b = NewBreaker(p, bs.o)
		bs.byName[p.Name()] = b
		return b
	}
	b.mu.Lock()
	b.p = p
	b.mu.Unlock()
	return b
}

// States reports every breaker's state by provider name, sorted.
func (bs *Breakers) States() []string {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	var out []string
	for name, b := range bs.byName {
		out = append(out, name+": "+string(b.State()))
	}
	sort.Strings(out)
	return out
}
