package assist

import (
	"context"
	"sync"

	"go.lsp.dev/uri"
)

// Latest keeps one request per document going: each new one
// cancels the one before, as a keystroke makes the last suggestion moot.
// Completion and next edits each have one. The zero value is ready; it has
// its own lock.
type Latest struct {
	mu     sync.Mutex
	cancel map[uri.URI]*context.CancelFunc
}

// Begin makes a request for document u the latest, cancelling the one
// before; done ends it.
func (l *Latest) Begin(ctx context.Context, u uri.URI) (_ context.Context, done func()) {
	ctx, cancel := context.WithCancel(ctx)
	mine := &cancel
	l.mu.Lock()
	if prev := l.cancel[u]; prev != nil {
		(*prev)()
	}
	if l.cancel == nil {
		l.cancel = map[uri.URI]*context.CancelFunc{}
	}
	l.cancel[u] = mine
	l.mu.Unlock()
	return ctx, func() {
		cancel()
		l.mu.Lock()
		if l.cancel[u] == mine {
			delete(l.cancel, u)
		}
		l.mu.Unlock()
	}
}

// End cancels the request going for document u, if any: it was closed.
func (l *Latest) End(u uri.URI) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cancel := l.cancel[u]; cancel != nil {
		(*cancel)()
		delete(l.cancel, u)
	}
}
