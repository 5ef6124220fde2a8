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
	// MaxOutput bounds a result's text in bytes (0: 200,000).
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
	s := &Source{opts: opts, reported: map[*server]reported{}, bound: map[*server]bound{}}
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
	var wg sync.WaitGroup
	for _, e := range s.entries {
		wg.Go(func() { _, _ = e.srv.ensure(ctx) })
	}
	wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []tools.Tool
	var notices []string
	taken := map[string]string{}
	for _, e := range s.entries {
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
