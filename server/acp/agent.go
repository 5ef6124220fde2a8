package acp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/mcp"
)

// ProtocolVersion is the ACP version this agent speaks (the SDK's).
const ProtocolVersion = sdk.ProtocolVersion(sdk.ProtocolVersionNumber)

// Options wire the agent to the process: the CLI passes the real provider
// chain and model detection, tests scripted ones.
type Options struct {
	// NewProvider builds the model client of a turn from the effective settings.
	NewProvider func(ctx context.Context, s config.Settings) (llm.Provider, error)
	// FindModel fills in the model when none is configured (a key's default,
	// a local server's model); nil leaves the settings as they are.
	FindModel func(ctx context.Context, s config.Settings) (config.Settings, error)
	// ListModels lists the models the provider of s serves (`agent-lsp
	// models`), for the session's model option; nil offers only the
	// configured model.
	ListModels func(ctx context.Context, s config.Settings) ([]string, error)
	// Env reads the environment (secrets, AGENT_LSP_*, XDG_* dirs).
	Env    config.Env
	Logger *slog.Logger
	// Version is reported as agentInfo.version.
	Version string
	// Executable is agent-lsp's own path, for clients that run the
	// terminal set-up from the sign-in method's command (auth.go).
	Executable string
}

// Agent is one ACP connection's agent: the client's capabilities and the
// sessions opened on it. It implements the SDK's Agent and AgentLoader.
type Agent struct {
	opts Options
	log  *slog.Logger
	conn *sdk.AgentSideConnection // set before the first message is read
	mcp  *mcp.Pool                // the MCP servers of every session (the user's, the client's), closed with the connection
	lsp  *langserver.Manager      // the sessions' language servers (nil: none), closed with the connection
	// runModels finds the sessions' model and builds its client.
	runModels *agentrun.Models

	// running counts the turns' goroutines, which may outlive their
	// prompt (cancelled) and end by saving the session.
	running sync.WaitGroup
	// menus serialises sending the sessions' menus, so the last one a
	// client gets is the newest.
	menus sync.Mutex

	mu       sync.Mutex // guards the fields below
	closing  bool       // the connection ended: no turn starts
	client   sdk.ClientCapabilities
	sessions map[sdk.SessionId]*session
	// policies hold each workspace's command policy, so "always allow"
	// lasts for every session of the workspace while the process runs.
	policies map[string]*tools.Policy
	// models are the providers' model lists, by provider and server.
	models map[string][]string
	// listed are the workspaces whose sessions were listed (session/delete).
	listed []string
}

// Serve speaks ACP on in and out until the client closes in or ctx ends,
// then cancels every run. Malformed input is answered, never fatal.
func Serve(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	a := newAgent(opts)
	c := &compat{}
	w := &lockedWriter{w: out, compat: c}
	ready := make(chan struct{})
	filter := newFilterReader(in, w, a.log, ready)
	filter.compat = c
	a.conn = sdk.NewAgentSideConnection(a, w, filter)
	a.conn.SetLogger(a.log)
	close(ready)
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
	}
	a.closeAll()
	a.waitTurns(shutdownWait)
	// The MCP servers the sessions started end with the connection.
	if err := a.mcp.Close(); err != nil {
		a.log.Warn("acp: stopping the MCP servers", "error", err)
	}
	a.lsp.Close()
	return nil
}

func newAgent(opts Options) *Agent {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Env == nil {
		opts.Env = os.Getenv
	}
	if opts.Executable == "" {
		opts.Executable = "agent-lsp"
	}
	a := &Agent{opts: opts, log: opts.Logger, sessions: map[sdk.SessionId]*session{}, policies: map[string]*tools.Policy{}, models: map[string][]string{},
		lsp: agentrun.NewLanguageServers(opts.Env), runModels: agentrun.NewModels(opts.NewProvider, opts.FindModel)}
	a.mcp = mcp.NewPool(mcp.Options{Env: opts.Env, Logger: opts.Logger, Version: opts.Version, OnChange: a.mcpChanged})
	return a
}

// Initialize negotiates the version (we speak 1 and answer 1 to any other,
// as the protocol asks) and states what we offer.
func (a *Agent) Initialize(ctx context.Context, p sdk.InitializeRequest) (resp sdk.InitializeResponse, err error) {
	defer guard(a.log, "initialize", &err)
	a.mu.Lock()
	a.client = p.ClientCapabilities
	a.mu.Unlock()
	title := "agent-lsp"
	return sdk.InitializeResponse{
		ProtocolVersion: ProtocolVersion,
		AgentInfo:       &sdk.Implementation{Name: "agent-lsp", Title: &title, Version: a.opts.Version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession: true,
			// Text and resource links are every agent's; embedded context
			// (the client's buffers and selections) is read as text; images
			// go to a model that sees them (images.go).
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true, Image: true},
			SessionCapabilities: sdk.SessionCapabilities{
				// and delete, which the SDK lacks: compat.go adds it.
				List: &sdk.SessionListCapabilities{}, Resume: &sdk.SessionResumeCapabilities{}, Close: &sdk.SessionCloseCapabilities{},
				// Each directory is a root of the session's view (tools/roots.go).
				AdditionalDirectories: &sdk.SessionAdditionalDirectoriesCapabilities{},
			},
			McpCapabilities: mcpCapabilities(),
		},
		// Sign-in (auth.go): asked for with auth_required when no model is usable.
		AuthMethods: a.authMethods(p.ClientCapabilities),
	}, nil
}

// clientCaps is what the client said it can do.
func (a *Agent) clientCaps() sdk.ClientCapabilities {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.client
}

// policy is root's command policy, made from settings the first time and
// given the allowlist of settings read since (a new session reads them
// again): what the user allowed for good stays.
func (a *Agent) policy(root string, s config.Settings) *tools.Policy {
	a.mu.Lock()
	defer a.mu.Unlock()
	p, ok := a.policies[root]
	if !ok {
		p = agentrun.Policy(s)
		a.policies[root] = p
	} else {
		agentrun.RefreshPolicy(p, s)
	}
	return p
}

// session returns the open session called id.
func (a *Agent) session(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	if !ok {
		return nil, sdk.NewInvalidParams(map[string]any{"error": "unknown session " + string(id) + " (session/new or session/load first)"})
	}
	return s, nil
}

// shutdownWait bounds how long the end of the connection waits for the
// cancelled turns to unwind and save their sessions.
const shutdownWait = 5 * time.Second

// addTurn counts a turn's goroutine in, unless the connection is ending.
func (a *Agent) addTurn() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closing {
		return false
	}
	a.running.Add(1)
	return true
}

// waitTurns waits for the turns' goroutines, at most d.
func (a *Agent) waitTurns(d time.Duration) {
	done := make(chan struct{})
	go func() {
		a.running.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
		a.log.Warn("acp: turns still unwinding at exit", "waited", d)
	}
}

// closeAll cancels every session's run: the connection is gone.
func (a *Agent) closeAll() {
	a.mu.Lock()
	a.closing = true
	all := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		all = append(all, s)
	}
	a.sessions = map[sdk.SessionId]*session{}
	a.mu.Unlock()
	for _, s := range all {
		s.close()
	}
}

// requestError is a JSON-RPC error with our message, for failures the user
// must read (a broken config file, a failed run): shown, never obeyed
// (tools.Displayable), as a provider's or a file's words may be in it.
// What a sign-in fixes (no model, no key) is auth_required.
func requestError(err error) error {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		return re
	}
	if needsSignIn(err) {
		return authRequired(err)
	}
	return &sdk.RequestError{Code: -32603, Message: "agent-lsp: " + tools.Displayable(err.Error())}
}
