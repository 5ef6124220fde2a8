package server

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/server/fileuri"
)

// window is the client's window as every part of the server speaks to
// it: its log and its messages, and documents written under the cache dir
// (never the workspace) that it is asked to open. client is set by Serve,
// before anything is sent; a fake one makes the parts testable without a
// connection.
type window struct {
	client   protocol.Client
	caps     *capsRef
	cacheDir string
	log      *slog.Logger
}

func (w *window) logMessage(ctx context.Context, t protocol.MessageType, msg string) {
	if err := w.client.LogMessage(ctx, &protocol.LogMessageParams{Type: t, Message: msg}); err != nil {
		w.log.Debug("logMessage", "error", err)
	}
}

func (w *window) showMessage(ctx context.Context, t protocol.MessageType, msg string) {
	if err := w.client.ShowMessage(ctx, &protocol.ShowMessageParams{Type: t, Message: msg}); err != nil {
		w.log.Debug("showMessage", "error", err)
	}
}

// howTo names how the user does something: the code action titled action
// (every client lists those), and where the client can run a command with
// arguments, the command too ("agent.applyProposal proposal-1").
func howTo(caps clientCaps, action, command, arg string) string {
	if !caps.commandArgs {
		return fmt.Sprintf("the code action %q", action)
	}
	return fmt.Sprintf("the code action %q or the command `%s %s`", action, command, arg)
}

// showDocumentBound is how long the server waits for window/showDocument's answer.
const showDocumentBound = 10 * time.Second

// showFile writes content under the cache dir (never the workspace) as name,
// a relative path, and asks the client to open it. It reports whether the
// client showed it.
func (w *window) showFile(ctx context.Context, name, content string, focus bool) (uri.URI, bool) {
	u := w.writeDocument(name, content)
	if u == "" {
		return "", false
	}
	return u, w.openDocument(ctx, u, focus)
}

// writeDocument writes content under the cache dir as name, a relative
// path, and returns its URI ("" when it could not).
func (w *window) writeDocument(name, content string) uri.URI {
	dir := filepath.Join(w.cacheDir, "documents")
	path := filepath.Join(dir, name)
	if rel, err := filepath.Rel(dir, path); err != nil || !filepath.IsLocal(rel) {
		w.log.Warn("document name outside the documents dir", "name", name)
		return ""
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		w.log.Warn("cache dir", "error", err)
		return ""
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		w.log.Warn("write document", "error", err)
		return ""
	}
	return fileuri.URI(path)
}

// openDocument asks the client to open u, and reports whether it did.
func (w *window) openDocument(ctx context.Context, u uri.URI, focus bool) bool {
	if caps := w.caps.get(); !caps.showDocument || caps.showsAnswers {
		return false
	}
	// Bounded: a client that never answers must not hold what shows it.
	ctx, cancel := context.WithTimeout(ctx, showDocumentBound)
	defer cancel()
	result, err := w.client.ShowDocument(ctx, &protocol.ShowDocumentParams{URI: u, TakeFocus: &focus})
	if err != nil {
		w.log.Debug("showDocument", "error", err)
		return false
	}
	return result != nil && result.Success
}
