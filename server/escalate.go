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

// escalation asks the user what to do with a run every model failed.
type escalation struct {
	win *window
	// resume goes on with prev's session, history and changeset, on
	// settings (another model, or the same one again).
	resume func(ctx context.Context, prev *run, settings config.Settings)
}

// ask asks the user what to do when every model failed: retry, continue
// on another configured model, or stop. A client that cannot ask (Helix) gets
// the error as a message, with what to configure.
func (e *escalation) ask(r *run, cause error) {
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
	choice, err := e.win.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{Type: protocol.MessageTypeError, Message: msg, Actions: actions})
	if err != nil || choice == nil || choice.Title == escalateCancel {
		if err != nil {
			e.win.showMessage(ctx, protocol.MessageTypeError, fmt.Sprintf("agent-lsp: %s failed: %v (set fallback models with AGENT_LSP_FALLBACK or `fallback` in the config)", r.name(), cause))
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
	e.resume(ctx, r, settings)
}
