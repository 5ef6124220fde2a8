package langserver

import (
	"context"
	"slices"
	"sync"

	"github.com/agent-lsp/agent-lsp/tools"
)

// bufferFollower sends the editor's changes of the documents a run has
// open on its servers, as the user types: the servers then diagnose what
// the editor shows without waiting for the run's next language operation.
// A document the run staged keeps its staged text. One goroutine sends,
// so that the editor's notification only marks the path.
type bufferFollower struct {
	stopWatch func()
	wake      chan struct{}
	done      chan struct{}
	ended     sync.WaitGroup
	stopOnce  sync.Once

	mu      sync.Mutex
	pending map[string]bool
}

// followBuffers starts following the editor's buffers, when the view's
// overlay can say of their changes.
func (s *Session) followBuffers() {
	f := &bufferFollower{wake: make(chan struct{}, 1), done: make(chan struct{}), pending: map[string]bool{}}
	stop, ok := s.view.WatchBuffers(func(abs string) {
		f.mu.Lock()
		f.pending[abs] = true
		f.mu.Unlock()
		select {
		case f.wake <- struct{}{}:
		default:
		}
	})
	if !ok {
		return
	}
	f.stopWatch = stop
	s.follower = f
	f.ended.Go(func() {
		for {
			select {
			case <-f.done:
				return
			case <-f.wake:
			}
			f.mu.Lock()
			paths := slices.Sorted(func(yield func(string) bool) {
				for p := range f.pending {
					if !yield(p) {
						return
					}
				}
			})
			clear(f.pending)
			f.mu.Unlock()
			for _, p := range paths {
				s.resync(p)
			}
		}
	})
}

// stopFollowing ends the following; the last send under way ends first.
func (s *Session) stopFollowing() {
	if f := s.follower; f != nil {
		f.stopOnce.Do(func() {
			f.stopWatch()
			close(f.done)
		})
		f.ended.Wait()
	}
}

// resync sends abs's text in the run's view to each server that has it
// open, unless the run staged it (the server holds the staged text).
func (s *Session) resync(abs string) {
	if s.staged(abs) {
		return
	}
	s.mu.Lock()
	uses := make([]*serverUse, 0, len(s.used))
	for _, u := range s.used {
		uses = append(uses, u)
	}
	s.mu.Unlock()
	for _, u := range uses {
		if _, open := u.c.Text(abs); !open {
			continue // not the run's: no wait on the run's operation under way
		}
		unlock := u.lock()
		if _, open := u.c.Text(abs); open {
			if text, ok := s.text(abs); ok {
				ctx, cancel := context.WithTimeout(context.Background(), u.c.timeout)
				_, err := u.c.Sync(ctx, abs, u.language[abs], text, false)
				cancel()
				u.c.log.Debug("an editor buffer's change sent", "server", u.cfg.Name, "path", abs, "error", err)
			}
		}
		unlock()
	}
}

// staged says whether the run staged abs.
func (s *Session) staged(abs string) bool {
	return slices.ContainsFunc(s.view.Changes(), func(c tools.Change) bool { return c.AbsPath == abs })
}
