package langserver

import (
	"context"
	"errors"
)

// ServerSays waits for what a server of the session said of abs at the
// version it has now, and returns that text and version: what tests see
// of the server's side.
func (s *Session) ServerSays(ctx context.Context, abs string) (text string, version int32, ds []Diagnostic, err error) {
	s.mu.Lock()
	uses := make([]*serverUse, 0, len(s.used))
	for _, u := range s.used {
		uses = append(uses, u)
	}
	s.mu.Unlock()
	for _, u := range uses {
		u.c.mu.Lock()
		d, open := u.c.docs[abs]
		if open {
			text, version = d.text, d.version
		}
		u.c.mu.Unlock()
		if open {
			ds, err = u.c.Diagnostics(ctx, abs, version)
			return text, version, ds, err
		}
	}
	return "", 0, nil, errors.New("no server has it open")
}
