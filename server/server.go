// Package server is agent-lsp's LSP surface: lifecycle, text sync into
// overlays, code actions, workspace/executeCommand, progress, approvals and
// workspace/applyEdit. Handlers resolve documents and hand the work to
// packages that do it: runs to server/agentrun (the agent and the tools),
// editor assistance to server/completion and server/nextedit over the
// document store server/documents; this package never calls a model or runs
// a tool itself.
package server

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/server/completion"
	"github.com/agent-lsp/agent-lsp/server/documents"
	"github.com/agent-lsp/agent-lsp/server/nextedit"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/mcp"
)

// Options wire the server to the rest of the program.
type Options struct {
	// NewProvider builds the model client for a run from the effective settings.
	NewProvider func(ctx context.Context, s config.Settings) (llm.Provider, error)
	// NewInfiller builds the completion model's client from the effective
	// settings (s.Completion); nil leaves completion off.
	NewInfiller func(ctx context.Context, s config.Settings) (llm.Infiller, error)
	// NewNES builds the next-edit model's client from the effective settings
	// (s.NES, s.NESTarget()); nil leaves next edit suggestions off.
	NewNES func(ctx context.Context, s config.Settings) (llm.Provider, error)
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

// Server is one language server connection. Each concern has its own lock,
// declared beside what it guards, so a slow one never holds up another:
//   - lifecycle: initialize, shutdown and exit;
//   - workspace: the folders and the configuration;
//   - docs: the open buffers (server/documents, its own lock);
//   - runs: the runs and proposals, and the proposals' states;
//   - sessions: the conversations and the current one;
//   - progress: the work-done progress tokens;
//   - completer: completion (server/completion, its own locks);
//   - nextEdits: next edit suggestions (server/nextedit, its own locks);
//   - inflight: the requests $/cancelRequest can cancel.
//
// caps, what the client can do, is stored once at initialize and read
// without a lock.
//
// Locks are never held while calling the client. Where two are held, runs
// comes first, a run's own lock last; lifecycle's and workspace's are taken
// alone (workspace's over a folder policy's own).
type Server struct {
	opts      Options
	options   sessionOptions // the client's model and thinking, and the context meter
	log       *slog.Logger
	conn      jsonrpc2.Conn
	client    protocol.Client // requests and notifications to the editor
	lifecycle *lifecycle
	caps      atomic.Pointer[clientCaps] // nil until initialize (clientCaps)
	workspace workspaceConfig
	docs      *documents.Store
	runs      registry
	sessions  sessionSet
	progress  *progressTracker
	completer *completion.Engine
	nextEdits nextEdits
	inflight  inflight
	handlers  map[string]handlerFunc
	approvals questions // approvals waiting for a code action's answer
	// actionSources list the code actions, set at New.
	actionSources []actionSource
	// mcp holds the runs' MCP servers: started on a run's first use of
	// their tools, ended when Serve returns.
	mcp *mcp.Pool
	// models finds the runs' model and builds its client.
	models *agentrun.Models
	// lsp holds the runs' language servers (nil: none), stopped when
	// Serve returns.
	lsp *langserver.Manager
	// sandboxOnce readies the sandbox once initialize is answered
	// (reportSandboxLevel).
	sandboxOnce sync.Once
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
		opts: opts, log: opts.Logger, lifecycle: newLifecycle(), docs: documents.New(),
		progress: newProgressTracker(opts.Logger),
		mcp:      mcp.NewPool(mcp.Options{Env: opts.Env, Logger: opts.Logger, Version: opts.Version}),
		lsp:      agentrun.NewLanguageServers(opts.Env),
		models:   agentrun.NewModels(opts.NewProvider, opts.FindModel),
	}
	s.completer = completion.New(s.docs, opts.NewInfiller, opts.Logger)
	s.nextEdits.engine = nextedit.New(s.docs, opts.NewNES, opts.Logger)
	s.actionSources = s.codeActionSources()
	s.handlers = map[string]handlerFunc{
		protocol.MethodInitialize:                         s.initialize,
		protocol.MethodInitialized:                        s.initialized,
		protocol.MethodShutdown:                           s.shutdown,
		protocol.MethodExit:                               s.exit,
		protocol.MethodWorkspaceDidChangeConfiguration:    s.didChangeConfiguration,
		protocol.MethodWorkspaceDidChangeWorkspaceFolders: s.didChangeWorkspaceFolders,
		protocol.MethodTextDocumentDidOpen:                s.didOpen,
		protocol.MethodTextDocumentDidChange:              s.didChange,
		protocol.MethodTextDocumentDidClose:               s.didClose,
		protocol.MethodTextDocumentDidSave:                s.didSave,
		protocol.MethodTextDocumentCodeAction:             s.codeAction,
		protocol.MethodCodeActionResolve:                  s.codeActionResolve,
		protocol.MethodWorkspaceExecuteCommand:            s.executeCommand,
		protocol.MethodWindowWorkDoneProgressCancel:       s.workDoneProgressCancel,
		protocol.MethodTextDocumentInlineCompletion:       s.inlineCompletion,
		protocol.MethodTextDocumentCompletion:             s.completion,
		methodInlineEdit:                                  s.inlineEdit,
	}
	return s
}

// Serve runs the protocol on rwc until the client sends exit or goes away, and
// returns the process exit code: 0 after shutdown then exit, 1 otherwise.
// Runs still going are cancelled.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.conn = jsonrpc2.NewConn(newTolerantStream(rwc, s.log), jsonrpc2.WithCodec(lspCodec{}), jsonrpc2.WithPreempter(s))
	s.client = readerGuard{displayClient{protocol.ClientDispatcher(s.conn)}, s.log}
	s.progress.setClient(s.client)
	s.conn.Go(ctx, s.handle)
	select {
	case <-s.lifecycle.done():
	case <-s.conn.Done():
		s.log.Info("client connection ended", "error", s.conn.Err())
	case <-ctx.Done():
	}
	s.runs.cancelAll()
	s.nextEdits.engine.Stop()
	// Close waits for handlers to drain; don't let a stuck client hold the exit.
	go s.conn.Close()
	if err := s.mcp.Close(); err != nil {
		s.log.Warn("stopping the MCP servers", "error", err)
	}
	s.lsp.Close()
	return s.lifecycle.code()
}

// clientCaps is what the client said it can do (fixed at initialize; none
// before).
func (s *Server) clientCaps() clientCaps {
	if caps := s.caps.Load(); caps != nil {
		return *caps
	}
	return clientCaps{}
}
