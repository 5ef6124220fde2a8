// Package assist holds what completion and next edit suggestions share as
// features that call a model as the user types: the model client's slot,
// the pause after repeated failures, and one request going per document.
// It knows nothing of LSP beyond a document's URI.
package assist

import (
	"context"
	"sync"
	"time"
)

const (
	PauseFor            = 30 * time.Second
	FailuresBeforePause = 3
)

// Pause keeps a feature that calls a model as you type (completion,
// next edits) from calling one that keeps failing: after
// FailuresBeforePause failures in a row, no call for PauseFor. The
// zero value is ready; it has its own lock.
type Pause struct {
	mu       sync.Mutex // guards failures and until
	failures int
	until    time.Time
}

// Paused says whether calls are paused now.
func (p *Pause) Paused() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return time.Now().Before(p.until)
}

// Settle counts a model call's outcome: a success ends a run of failures;
// a cancelled call (ctx done) counts for nothing.
func (p *Pause) Settle(ctx context.Context, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err == nil:
		p.failures = 0
	case ctx.Err() == nil:
		p.failures++
		if p.failures >= FailuresBeforePause {
			p.until, p.failures = time.Now().Add(PauseFor), 0
		}
	}
}

// Until is when the pause ends; zero when there is none.
func (p *Pause) Until() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Now().Before(p.until) {
		return p.until
	}
	return time.Time{}
}
