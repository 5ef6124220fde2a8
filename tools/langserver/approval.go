package langserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Asker asks the user whether a server may start: where no OS boundary
// holds what it runs of the project (below the sandbox's full level), a
// server is started only as a command that runs workspace code is, with
// the user's yes.
type Asker func(ctx context.Context, req tools.ApprovalRequest) (tools.Decision, error)

// AskBeforeStarting makes the session ask before it starts a server the
// Manager has not been allowed to start for good; nil asks nothing.
func (s *Session) AskBeforeStarting(ask Asker, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ask, s.askWhy = ask, why
}

// mayStart asks, where it must, whether cfg may start for root: the
// Manager remembers "always" for its life, the session "once" for its run.
func (s *Session) mayStart(ctx context.Context, cfg ServerConfig, k serverKey) error {
	s.mu.Lock()
	ask, why, once := s.ask, s.askWhy, s.allowedOnce[k]
	s.mu.Unlock()
	if ask == nil || once || s.m.allowed(k) || s.m.running(k) {
		return nil
	}
	argv := append([]string{cfg.Command}, cfg.Args...)
	d, err := ask(ctx, tools.ApprovalRequest{
		Command: strings.Join(argv, " "),
		Reasons: []string{fmt.Sprintf("starts the language server %s in %s, which runs the project's code (%s)", cfg.Name, k.root, why)},
	})
	switch {
	case err != nil:
		return &UnavailableError{cfg.Name, "not started: the user could not be asked (" + err.Error() + ")"}
	case d == tools.AllowAlways:
		s.m.allow(k)
	case d == tools.AllowOnce:
		s.mu.Lock()
		s.allowedOnce[k] = true
		s.mu.Unlock()
	default:
		return &UnavailableError{cfg.Name, "not started: the user did not allow it to run the project's code here"}
	}
	return nil
}

// mayWarm says whether a server may start without a question (Warm never asks).
func (s *Session) mayWarm(k serverKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ask == nil || s.allowedOnce[k] || s.m.allowed(k) || s.m.running(k)
}

// allowed says whether the user allowed k's server for the Manager's life.
func (m *Manager) allowed(k serverKey) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.allowedAlways[k]
}

func (m *Manager) allow(k serverKey) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.allowedAlways[k] = true
}

// running says whether k's server is up (it was allowed when it started).
func (m *Manager) running(k serverKey) bool {
	m.mu.Lock()
	s, ok := m.servers[k]
	m.mu.Unlock()
	return ok && s.isRunning()
}

// isRunning says whether the server has a client now.
func (s *managed) isRunning() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client != nil
}
