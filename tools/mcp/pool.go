// Package mcp makes Model Context Protocol servers tool sources, on the
// official Go SDK: it starts a configured stdio server (or connects to a
// Streamable HTTP one) when a run first needs its tools, lists them, and
// offers each to the model as mcp__SERVER__TOOL, a tools.Tool whose calls
// ask the user through the run's tools.Approver (Deny first) unless the
// tool is in the server's allowed_tools.
//
// Invariants:
//   - nothing starts before a run asks for the tools (LSP initialize never
//     waits on a server);
//   - a stdio server runs in its own process group with only the
//     environment it is given, and everything in that group ends when the
//     Pool closes;
//   - a server that dies is restarted once; dying again, failing to start
//     or answering nothing within its timeout fails it for the Pool's life:
//     it is reported and its tools are absent, the run goes on;
//   - what a server says is untrusted: tool names become [A-Za-z0-9_-]{1,64},
//     descriptions say whose they are, schemas and results are bounded,
//     images and binary resources are described, never passed on.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"
)

// DefaultTimeout bounds a start and each call when timeout_s is not set.
const DefaultTimeout = 30 * time.Second

// ServerConfig is one server as a run uses it: the configuration with
// relative paths resolved against Root; ${VAR} references are expanded at
// start, and only when ReadsEnv.
type ServerConfig struct {
	Name   string
	Origin string // "user", "editor" or "project", for status and messages
	// ReadsEnv lets ${VAR} take the user's environment (the user's own
	// config or editor settings; never a project file).
	ReadsEnv bool
	Enabled  bool
	// Problem, when set, says why the entry cannot be used; it is reported
	// and never started.
	Problem string

	Command string // stdio
	Args    []string
	Env     map[string]string
	Dir     string // the working directory, relative to Root; "" is Root
	Root    string // the workspace root

	URL     string // Streamable HTTP
	Headers map[string]string

	Timeout       time.Duration // 0: DefaultTimeout
	AllowedTools  []string      // run without asking (server's or mcp__ names)
	DisabledTools []string      // never offered
}

func (c ServerConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// Transport is "stdio" or "http".
func (c ServerConfig) Transport() string {
	if c.URL != "" {
		return "http"
	}
	return "stdio"
}

// key identifies what is started: everything but the per-run lists.
func (c ServerConfig) key() string {
	c.AllowedTools, c.DisabledTools, c.Origin = nil, nil, ""
	b, _ := json.Marshal(c)
	return string(b)
}

// lists reports whether list names a tool, by the server's name for it
// (remote) or the model's (name).
func (c ServerConfig) lists(list []string, remote, name string) bool {
	return slices.Contains(list, remote) || slices.Contains(list, name)
}

// Options configure a Pool.
type Options struct {
	// Env reads the user's environment: ${VAR} and the variables a stdio
	// server inherits. Default os.Getenv.
	Env func(string) string
	// Logger receives the SDK's and the pool's diagnostics; default none.
	Logger *slog.Logger
	// Version is sent to servers as the client's.
	Version string
	// OnChange, when set, is called with a server's name after it started
	// or its tool or prompt list changed (tools/list_changed,
	// prompts/list_changed).
	OnChange func(server string)
}

// Pool holds the MCP servers of a process, each started once and shared by
// the runs that use the same configuration. Safe for concurrent use; Close
// ends every server.
type Pool struct {
	opts   Options
	env    func(string) string
	log    *slog.Logger
	ctx    context.Context // ends at Close: starts under way give up
	cancel context.CancelFunc
	// ask serialises approval questions, so parallel calls (read-only
	// tools, sub-agents) ask one at a time and an "always" answer counts
	// for the calls still waiting.
	ask sync.Mutex

	mu      sync.Mutex // guards servers and closed
	servers map[string]*server
	closed  bool
}

// NewPool makes an empty pool; nothing starts until a run asks for tools.
func NewPool(opts Options) *Pool {
	p := &Pool{opts: opts, env: opts.Env, log: opts.Logger, servers: map[string]*server{}}
	if p.env == nil {
		p.env = os.Getenv
	}
	if p.log == nil {
		p.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p
}

// errClosed is the state of servers after Close.
var errClosed = errors.New("agent-lsp is shutting down")

// Close stops every server and waits until their processes are gone.
// Later runs get no MCP tools from this pool.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	servers := make([]*server, 0, len(p.servers))
	for _, s := range p.servers {
		servers = append(servers, s)
	}
	p.mu.Unlock()
	p.cancel()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() { s.stop(errClosed) })
	}
	wg.Wait()
	return nil
}

// server returns the pool's server for cfg, made (not started) on first
// use. A new configuration of a server replaces the older one of the same
// name and root, which is stopped once no call is using it.
func (p *Pool) server(cfg ServerConfig) *server {
	key := cfg.key()
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.servers[key]; ok {
		return s
	}
	s := newServer(p, cfg, key)
	if p.closed {
		s.state, s.err = StateStopped, errClosed
		return s
	}
	for k, old := range p.servers {
		if old.cfg.Name == cfg.Name && old.cfg.Root == cfg.Root {
			delete(p.servers, k)
			go old.retire()
		}
	}
	p.servers[key] = s
	return s
}

// lookup returns the server for cfg if there is one.
func (p *Pool) lookup(cfg ServerConfig) *server {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.servers[cfg.key()]
}

func (p *Pool) changed(s *server) {
	if p.opts.OnChange != nil {
		p.opts.OnChange(s.cfg.Name)
	}
}

// Start starts the enabled servers of cfgs that are not running and waits
// for each (within its timeout or ctx): `agent-lsp doctor` checks them so.
func (p *Pool) Start(ctx context.Context, cfgs []ServerConfig) {
	var wg sync.WaitGroup
	for _, c := range cfgs {
		if !c.Enabled {
			continue
		}
		s := p.server(c)
		wg.Go(func() { _, _ = s.ensure(ctx) })
	}
	wg.Wait()
}
