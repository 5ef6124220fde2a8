// Package server is agent-lsp's LSP surface: lifecycle, text sync into
// overlays, code actions, workspace/executeCommand, progress, approvals and
// workspace/applyEdit. Handlers resolve documents and hand the work to the
// agent and tools packages, which know nothing of LSP; this package never
// calls a model or runs a tool itself.
package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Options wire the server to the rest of the program.
type Options struct {
	// NewProvider builds the model client for a run from the effective settings.
	NewProvider func(ctx context.Context, s config.Settings, client *http.Client) (llm.Provider, error)
	// Env reads the environment (secrets and AGENT_LSP_* settings).
	Env config.Env
	// CacheDir receives answer documents and proposal diffs (never the
	// workspace). Default: the user's cache dir + /agent-lsp.
	CacheDir string
	Logger   *slog.Logger
	// Version is reported in serverInfo.
	Version string
	// Breakers reports the providers' circuit breaker states for agent.status.
	Breakers func() []string
	// FindModel fills in the model when none is configured (a key's default,
	// a local server's model); nil leaves the settings as they are.
	FindModel func(ctx context.Context, s config.Settings) (config.Settings, error)
}

// Server is one language server connection. Its state is guarded by mu;
// documents and inflight carry their own locks.
type Server struct {
	opts     Options
	log      *slog.Logger
	conn     jsonrpc2.Conn
	docs     *documents
	inflight inflight
	handlers map[string]handlerFunc

	mu           sync.Mutex // guards everything below
	initDone     bool
	shutdownSeen bool
	exitCode     int
	exited       chan struct{}
	root         string
	fileSettings config.Settings // files and environment
	userSettings config.Settings // initializationOptions and didChangeConfiguration
	configNotes  []string        // what loading the configuration ignored or failed on
	caps         clientCaps
	policy       *tools.Policy
	sessions     map[string]*agent.History // loaded sessions by id
	session      string                    // the current one
	store        *agent.SessionStore
	memory       *agent.Memory
	runs         map[string]*run
	proposals    map[string]*proposal
	nextID       int
}

// New builds a server; Serve runs it on a connection.
func New(opts Options) *Server {
	if opts.Env == nil {
		opts.Env = os.Getenv
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.CacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		opts.CacheDir = filepath.Join(dir, "agent-lsp")
	}
	s := &Server{
		opts: opts, log: opts.Logger, docs: newDocuments(), exitCode: 1, exited: make(chan struct{}),
		sessions: map[string]*agent.History{},
		runs:     map[string]*run{}, proposals: map[string]*proposal{},
	}
	s.handlers = map[string]handlerFunc{
		"initialize":                       s.initialize,
		"initialized":                      s.initializedNote,
		"shutdown":                         s.shutdown,
		"exit":                             s.exit,
		"workspace/didChangeConfiguration": s.didChangeConfiguration,
		"textDocument/didOpen":             s.didOpen,
		"textDocument/didChange":           s.didChange,
		"textDocument/didClose":            s.didClose,
		"textDocument/didSave":             ignore,
		"textDocument/codeAction":          s.codeAction,
		"codeAction/resolve":               s.codeActionResolve,
		"workspace/executeCommand":         s.executeCommand,
		"window/workDoneProgress/cancel":   s.workDoneProgressCancel,
	}
	return s
}

func ignore(context.Context, jsonrpc2.RawMessage) (any, error) { return nil, nil }

// Serve runs the protocol on rwc until the client sends exit or goes away, and
// returns the process exit code: 0 after shutdown then exit, 1 otherwise.
// Runs still going are cancelled.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.conn = jsonrpc2.NewConn(newTolerantStream(rwc, s.log), jsonrpc2.WithCodec(lspCodec{}), jsonrpc2.WithPreempter(s))
	s.conn.Go(ctx, s.handle)
	select {
	case <-s.exited:
	case <-s.conn.Done():
		s.log.Info("client connection ended", "error", s.conn.Err())
	case <-ctx.Done():
	}
	s.cancelAllRuns()
	// Close waits for handlers to drain; don't let a stuck client hold the exit.
	go s.conn.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitCode
}

func (s *Server) initialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initDone
}

// newID returns a fresh id for runs, proposals and sessions.
func (s *Server) newIDLocked() int {
	s.nextID++
	return s.nextID
}
