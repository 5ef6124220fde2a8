package sandbox

import (
	"fmt"
	"sync"
)

// Group bounds language servers together: those started with it as their
// Spec.Group use at most its Limits' Memory and Processes between them,
// each bounded by its own Limits besides. It is a cgroup holding each
// server's own, where the sandbox uses cgroups (Bounded); elsewhere it
// bounds nothing together, and Bounded says so.
type Group struct {
	limits Limits
	mu     sync.Mutex // guards cg
	cg     *cgroup    // nil: no cgroups here, or closed
}

// NewGroup makes a group bounded by l's Memory and Processes (defaults as
// for one command). Where the sandbox uses no cgroups (level none, or
// rlimits instead) the group bounds nothing together (Bounded); where it
// does, a group whose cgroup cannot be made is an error.
func NewGroup(l Limits) (*Group, error) {
	g := &Group{limits: l.withDefaults()}
	if c := Probe(); c.Level == None || !c.cgroups() {
		return g, nil
	}
	version, parents := cgroupParents()
	if version == "" {
		return g, nil
	}
	cg, err := newCgroupIn(parents, g.limits, true)
	if err != nil {
		return nil, fmt.Errorf("sandbox: the language servers' cgroup: %w", err)
	}
	g.cg = cg
	return g, nil
}

// Bounded reports whether the group's limits hold: its cgroup was made.
func (g *Group) Bounded() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cg != nil
}

// Close removes the group's cgroup, once its servers have exited (a
// server still running keeps it; the next start of agent-lsp removes it).
func (g *Group) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cg != nil {
		for _, dir := range g.cg.dirs {
			removeCgroupTree(dir)
		}
		g.cg = nil
	}
	return nil
}

// parents is where a server's cgroup is made in the group, nil when the
// group bounds nothing.
func (g *Group) parents() map[string]string {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cg == nil {
		return nil
	}
	return g.cg.in
}
