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

// Server is one language server connection, and the glue between the
// wire and the concerns that do the work, each a type of its own over the
// shared state below, with its own lock where it has state:
//   - runner: the runs (ask.go, run.go), with plans waiting for the user
//     (plans), escalation when every model failed (escalation);
//   - proposals: a run's changes sent, offered and found applied
//     (proposal*.go, applied.go), its new files offered (offers);
//   - approvals: what a run's policy does not allow, asked of the user;
//   - notes: what runs propose to remember;
//   - nextEdits, completer: editor assistance (server/nextedit,
//     server/completion, their own locks);
//   - win: the client's messages and documents, which they all speak to.
//
// The shared state, each with its own lock: lifecycle (initialize,
// shutdown, exit); workspace (the folders and the configuration); docs
// (the open buffers, server/documents); runs (the runs and proposals, and
// the proposals' states); sessions (the conversations and the current
// one); options (the client's model and thinking); progress (the
// work-done progress tokens); inflight (the requests $/cancelRequest can
// cancel). caps, what the client can do, is stored once at initialize and
// read without a lock.
//
// Locks are never held while calling the client. Where two are held, runs
// comes first, a run's own lock last; lifecycle's and workspace's are taken
// alone (workspace's over a folder policy's own).
type Server struct {
	opts     Options
	log      *slog.Logger
	conn     jsonrpc2.Conn
	client   protocol.Client // requests and notifications to the editor
	handlers map[string]handlerFunc
	inflight inflight
	// actionSources list the code actions, set at New.
	actionSources []actionSource
	// sandboxOnce readies the sandbox once initialize is answered
	// (reportSandboxLevel).
	sandboxOnce sync.Once

	lifecycle *lifecycle
	caps      *capsRef
	workspace *workspaceConfig
	docs      *documents.Store
	runs      *registry
	sessions  *sessionSet
	options   *sessionOptions
	progress  *progressTracker
	// mcp holds the runs' MCP servers: started on a run's first use of
	// their tools, ended when Serve returns.
	mcp *mcp.Pool
	// models finds the runs' model and builds its client.
	models *agentrun.Models
	// lsp holds the runs' language servers (nil: none), stopped when
	// Serve returns.
	lsp *langserver.Manager

	win       *window
	runner    *runner
	plans     *plans
	proposals *proposals
	approvals *approvals
	notes     *noteKeeper
	nextEdits *nextEdits
	completer *completion.Engine
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
		opts: opts, log: opts.Logger, lifecycle: newLifecycle(), docs: documents.New(), caps: &capsRef{},
		workspace: &workspaceConfig{env: opts.Env}, sessions: &sessionSet{}, options: &sessionOptions{},
		progress: newProgressTracker(opts.Logger),
		mcp:      mcp.NewPool(mcp.Options{Env: opts.Env, Logger: opts.Logger, Version: opts.Version}),
		lsp:      agentrun.NewLanguageServers(opts.Env),
		models:   agentrun.NewModels(opts.NewProvider, opts.FindModel),
	}
	s.win = &window{caps: s.caps, cacheDir: opts.CacheDir, log: opts.Logger}
	s.approvals = &approvals{win: s.win}
	s.runs = &registry{}
	s.notes = &noteKeeper{workspace: s.workspace, runs: s.runs, win: s.win}
	s.proposals = &proposals{runs: s.runs, docs: s.docs, win: s.win, workspace: s.workspace, notes: s.notes, offers: &offers{win: s.win}}
	s.plans = &plans{runs: s.runs, win: s.win, workspace: s.workspace}
	s.runner = &runner{
		runs: s.runs, sessions: s.sessions, options: s.options, workspace: s.workspace, docs: s.docs,
		models: s.models, mcp: s.mcp, lsp: s.lsp, progress: s.progress, win: s.win,
		approvals: s.approvals, notes: s.notes, proposals: s.proposals, plans: s.plans,
		newProvider: opts.NewProvider, env: opts.Env, log: opts.Logger,
	}
	s.runner.escalation = &escalation{win: s.win, resume: s.runner.resume}
	s.completer = completion.New(s.docs, opts.NewInfiller, opts.Logger)
	s.nextEdits = &nextEdits{engine: nextedit.New(s.docs, opts.NewNES, opts.Logger), docs: s.docs, caps: s.caps, workspace: s.workspace}
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
	s.win.client = s.client
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
