package server

import (
	"context"
	"sync"
	"time"
)

const (
	failurePause        = 30 * time.Second
	failuresBeforePause = 3
)

// modelPause keeps a feature that calls a model as you type (completion,
// next edits) from calling one that keeps failing: after
// failuresBeforePause failures in a row, no call for failurePause. The
// zero value is ready; it has its own lock.
type modelPause struct {
	mu       sync.Mutex // guards failures and until
	failures int
	until    time.Time
}

// paused says whether calls are paused now.
func (p *modelPause) paused() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return time.Now().Before(p.until)
}

// settle counts a model call's outcome: a success ends a run of failures;
// a cancelled call (ctx done) counts for nothing.
func (p *modelPause) settle(ctx context.Context, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err == nil:
		p.failures = 0
	case ctx.Err() == nil:
		p.failures++
		if p.failures >= failuresBeforePause {
			p.until, p.failures = time.Now().Add(failurePause), 0
		}
	}
}

// pausedUntil is when the pause ends; zero when there is none.
func (p *modelPause) pausedUntil() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Now().Before(p.until) {
		return p.until
	}
	return time.Time{}
}
