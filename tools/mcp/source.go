package mcp

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
)

// SourceOptions bind a run's tools to the run.
type SourceOptions struct {
	// Approver asks the user before a call off allowed_tools; nil denies.
	Approver tools.Approver
	// MaxOutput bounds a result's text in bytes (0: tools.DefaultMaxOutput).
	MaxOutput int
}

// Source offers one run the tools of its MCP servers. The agent asks for
// them before each model call (Tools), so a server that starts, restarts
// or changes its list shows from the next call on. Safe for concurrent use
// (sub-agents share their parent's source).
type Source struct {
	opts    SourceOptions
	entries []entry // enabled servers, by name

	mu       sync.Mutex // guards the fields below
	reported map[*server]reported
	bound    map[*server]bound
	admitted map[*server]bool // this run's answers about starting editor-configured servers
}

type entry struct {
	cfg ServerConfig
	srv *server
}

// reported is what the run was told about a server.
type reported struct {
	starts int
	failed bool
	gen    uint64 // of the warnings told
}

// bound are a server's tools bound to this run, for one generation of its list.
type bound struct {
	gen   uint64
	tools []tools.Tool
}

// Source makes the tool source of a run that uses cfgs; nothing starts yet.
func (p *Pool) Source(cfgs []ServerConfig, opts SourceOptions) *Source {
	s := &Source{opts: opts, reported: map[*server]reported{}, bound: map[*server]bound{}, admitted: map[*server]bool{}}
	for _, c := range cfgs {
		if c.Enabled {
			s.entries = append(s.entries, entry{cfg: c, srv: p.server(c)})
		}
	}
	slices.SortFunc(s.entries, func(a, b entry) int {
		if a.cfg.Name < b.cfg.Name {
			return -1
		}
		if a.cfg.Name > b.cfg.Name {
			return 1
		}
		return 0
	})
	return s
}

// Tools starts the servers that are not running (all at once, each within
// its timeout or until ctx ends) and returns the tools available now — the
// same values as long as nothing changed — with notices for the trace:
// servers started, restarted or failed, tools left out. Each is said once
// per run.
func (s *Source) Tools(ctx context.Context) ([]tools.Tool, []string) {
	if s == nil || len(s.entries) == 0 {
		return nil, nil
	}
	var notices []string
	admitted := make([]bool, len(s.entries))
	for i, e := range s.entries {
		var notice string
		admitted[i], notice = s.admit(ctx, e)
		if notice != "" {
			notices = append(notices, notice)
		}
	}
	var wg sync.WaitGroup
	for i, e := range s.entries {
		if admitted[i] {
			wg.Go(func() { _, _ = e.srv.ensure(ctx) })
		}
	}
	wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []tools.Tool
	taken := map[string]string{}
	for i, e := range s.entries {
		if !admitted[i] {
			continue
		}
		snap := e.srv.snapshot()
		notices = append(notices, s.news(e, snap)...)
		if snap.state != StateReady {
			continue
		}
		for _, t := range s.bind(e, snap) {
			if other, dup := taken[t.Name()]; dup {
				notices = append(notices, fmt.Sprintf("MCP server %s: tool %s left out: MCP server %s has one of that name", e.cfg.Name, t.Name(), other))
				continue
			}
			taken[t.Name()] = e.cfg.Name
			out = append(out, t)
		}
	}
	return out, notices
}

// admit decides whether a server may start (or be used) in this run. A
// server configured through the editor's settings is asked about first:
// some editors fill those settings from the repository without asking
// (Emacs's eglot-workspace-configuration is a safe file-local variable,
// so a .dir-locals.el sets it), and such a server would run a command with
// the user's rights or send the user's ${VAR}s to a URL the repository
// chose. Deny first, as every question; a denial holds for the run.
func (s *Source) admit(ctx context.Context, e entry) (bool, string) {
	if e.cfg.Origin != "editor" {
		return true, ""
	}
	e.srv.mu.Lock()
	ok := e.srv.admitted
	e.srv.mu.Unlock()
	s.mu.Lock()
	decided, asked := s.admitted[e.srv]
	s.mu.Unlock()
	if ok || asked {
		return ok || decided, ""
	}
	what := target(e.cfg) // a URL without its credentials and query
	decision := tools.Deny
	if s.opts.Approver != nil {
		d, err := s.opts.Approver.Approve(ctx, tools.ApprovalRequest{
			Command: fmt.Sprintf("start MCP server %s: %s", e.cfg.Name, what),
			Reasons: []string{"it comes from the editor's settings, which some editors take from the repository (Emacs's .dir-locals.el); servers in your own config.toml start without asking"},
		})
		if err == nil {
			decision = d
		}
	}
	allowed := decision == tools.AllowOnce || decision == tools.AllowAlways
	s.mu.Lock()
	s.admitted[e.srv] = allowed
	s.mu.Unlock()
	if decision == tools.AllowAlways {
		e.srv.mu.Lock()
		e.srv.admitted = true
		e.srv.mu.Unlock()
	}
	if !allowed {
		return false, fmt.Sprintf("MCP server %s not started: you did not allow it (it comes from the editor's settings; put it in your config.toml to start it without asking)", e.cfg.Name)
	}
	return true, ""
}

// news says what changed about a server since the run was last told.
func (s *Source) news(e entry, snap snapshot) []string {
	r := s.reported[e.srv]
	var out []string
	name := e.cfg.Name
	switch {
	case snap.state == StateReady && snap.starts > r.starts:
		verb := "started"
		if r.starts > 0 || snap.deaths > 0 {
			verb = "restarted after " + snap.lastExit
		}
		out = append(out, fmt.Sprintf("MCP server %s (%s) %s: %d tool(s) in %s", name, e.cfg.Transport(), verb, len(snap.offers), snap.took.Round(time.Millisecond)))
		r.starts = snap.starts
	case snap.state == StateFailed || snap.state == StateStopped:
		if !r.failed {
			out = append(out, fmt.Sprintf("MCP server %s %s: %s; its tools are left out", name, snap.state, tools.Printable(fmt.Sprint(snap.err))))
			r.failed = true
		}
	}
	if snap.state == StateReady && snap.gen != r.gen {
		if r.gen != 0 && len(out) == 0 {
			out = append(out, fmt.Sprintf("MCP server %s changed its tools: %d now", name, len(snap.offers)))
		}
		for _, w := range snap.warnings {
			out = append(out, fmt.Sprintf("MCP server %s: %s", name, w))
		}
		r.gen = snap.gen
	}
	s.reported[e.srv] = r
	return out
}

// bind returns the server's offers as this run's tools, made again only
// when its list changed.
func (s *Source) bind(e entry, snap snapshot) []tools.Tool {
	if b, ok := s.bound[e.srv]; ok && b.gen == snap.gen {
		return b.tools
	}
	var ts []tools.Tool
	for _, o := range snap.offers {
		if e.cfg.lists(e.cfg.DisabledTools, o.remote, o.name) {
			continue
		}
		ts = append(ts, &tool{
			offer: o, srv: e.srv, allowed: e.cfg.lists(e.cfg.AllowedTools, o.remote, o.name),
			approver: s.opts.Approver, maxOutput: s.opts.MaxOutput, timeout: e.cfg.timeout(),
		})
	}
	s.bound[e.srv] = bound{gen: snap.gen, tools: ts}
	return ts
}
