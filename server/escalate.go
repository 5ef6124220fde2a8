package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
)

// Answers offered when every model failed.
const (
	escalateRetry  = "Retry"
	escalateCancel = "Cancel"
	escalateUse    = "Use " // + provider:model
)

// providerFailure reports whether err came from the models, after retries and
// fallbacks, rather than from the run itself.
func providerFailure(err error) bool {
	var e *llm.Error
	return errors.As(err, &e) && !errors.Is(err, context.Canceled)
}

// escalate asks the user what to do when every model failed: retry, continue
// on another configured model, or stop. A client that cannot ask (Helix) gets
// the error as a message, with what to configure.
func (s *Server) escalate(r *run, cause error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// Cancel first: clients preselect the first action, and the others spend
	// money on another try.
	actions := []protocol.MessageActionItem{{Title: escalateCancel}, {Title: escalateRetry}}
	for _, b := range r.settings.Backups() {
		if m, err := config.ParseModelRef(b.Ref); err == nil && len(actions) < 5 {
			actions = append(actions, protocol.MessageActionItem{Title: escalateUse + m.String()})
		}
	}
	msg := fmt.Sprintf("agent-lsp: %s stopped: %v\nRetry or another model goes on with the changes staged so far; Cancel discards them. What now?", r.name(), cause)
	choice, err := s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{Type: protocol.MessageTypeError, Message: msg, Actions: actions})
	if err != nil || choice == nil || choice.Title == escalateCancel {
		if err != nil {
			s.showMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("agent-lsp: %s failed: %v (set fallback models with AGENT_LSP_FALLBACK or `fallback` in the config)", r.name(), cause))
		}
		return
	}
	settings := r.settings
	if ref, ok := strings.CutPrefix(choice.Title, escalateUse); ok {
		for _, b := range r.settings.Backups() {
			if m, err := config.ParseModelRef(b.Ref); err == nil && m.String() == ref {
				settings = r.settings.For(m)
			}
		}
	}
	s.continueRun(ctx, r, settings)
}

// continueRun starts a new run on prev's session, history and changeset.
func (s *Server) continueRun(ctx context.Context, prev *run, settings config.Settings) {
	provider, err := s.opts.NewProvider(ctx, settings)
	if err != nil {
		s.showMessage(ctx, protocol.MessageTypeError, "agent-lsp: "+err.Error())
		return
	}
	prev.mu.Lock()
	ws, notes := prev.ws, prev.notes
	prev.mu.Unlock()
	r := newRun(prev.session, prev.request, prev.task, settings, prev.history)
	// The history says which notes were proposed: they go on waiting with the run.
	r.ws, r.notes, r.continued, r.folder = ws, notes, true, prev.folder
	s.runs.add(r, false)
	s.logMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("agent-lsp: %s continues %s on %s", r.name(), prev.name(), provider.Name()))
	s.startRun(r, provider)
}
