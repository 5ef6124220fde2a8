package server

import (
	"fmt"
	"slices"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/tools"
)

// runState is where a run is: running, then one of the three ends.
type runState string

const (
	runRunning   runState = "running"
	runCompleted runState = "completed"
	runFailed    runState = "failed"
	runCancelled runState = "cancelled"
)

// proposalState is where a proposal is: pending until the user decides;
// applying while the client has the edit (back to pending if it declines);
// applied or discarded for good.
type proposalState string

const (
	proposalPending   proposalState = "pending"
	proposalApplying  proposalState = "applying"
	proposalApplied   proposalState = "applied"
	proposalDiscarded proposalState = "discarded"
)

// proposal is a finished run's changeset, waiting for the user. Its state is
// guarded by the registry's lock; the rest never changes.
type proposal struct {
	id      int // the number of the run that made it
	run     *run
	request string // the user's words, for labels
	changes []tools.Change
	state   proposalState
	// check and tests are what the run-end review said of it (the
	// language servers', the tests'): "" where it was not made.
	check, tests string
}

func (p *proposal) name() string { return fmt.Sprintf("proposal-%d", p.id) }

// diff is the proposal's unified diff as the user reads it (a command's
// result, the diff and answer documents): control and bidi characters the
// files hold are escaped, the first line saying so (tools.DisplayableDiff).
func (p *proposal) diff() string {
	return tools.DisplayableDiff(tools.Proposal{Changes: p.changes}.Diff())
}

// registry is the connection's runs and proposals, numbered in the order
// they started: a run and its proposal share the number ("run-3",
// "proposal-3"), the newest has the highest. mu guards the lists and every
// proposal's state, so a state is checked and changed in one step. A run's
// own fields have the run's lock, taken after mu when both are needed.
type registry struct {
	mu        sync.Mutex
	lastID    int
	runs      []*run      // ascending id
	proposals []*proposal // ascending id
}

// add numbers r and lists it. With queue set, r waits for the newest run
// still going in its session: both continue one conversation, so they take
// turns on its history. Choosing and listing in one step keeps two asks at
// once from both queueing behind the same run.
func (g *registry) add(r *run, queue bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if queue {
		for _, prev := range g.runs {
			if prev.session == r.session && prev.state() == runRunning {
				r.after = prev
			}
		}
	}
	g.lastID++
	r.id = g.lastID
	g.runs = append(g.runs, r)
	g.pruneLocked()
}

// keepEnded is how many ended runs and settled proposals the registry
// remembers (for agent.status and showProposal): a server lives as long as
// the editor, and what it keeps must not grow with every run.
const keepEnded = 100

// pruneLocked forgets all but the newest keepEnded settled proposals and
// ended runs; a running run, an unsettled proposal and its run stay.
func (g *registry) pruneLocked() {
	kept := map[*run]bool{}
	settled := 0
	g.proposals = pruneOldest(g.proposals, func(p *proposal) bool {
		if p.state == proposalPending || p.state == proposalApplying {
			kept[p.run] = true
			return true
		}
		settled++
		return settled <= keepEnded
	})
	ended := 0
	g.runs = pruneOldest(g.runs, func(r *run) bool {
		if kept[r] || r.state() == runRunning {
			return true
		}
		ended++
		return ended <= keepEnded
	})
}

// pruneOldest keeps the elements of list (oldest first) that keep accepts,
// asking from the newest back, so that keep can count the newest.
func pruneOldest[T any](list []T, keep func(T) bool) []T {
	out := make([]T, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- {
		if keep(list[i]) {
			out = append(out, list[i])
		}
	}
	slices.Reverse(out)
	return out
}

// all is a copy of the runs, oldest first.
func (g *registry) all() []*run {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]*run(nil), g.runs...)
}

// newest is the newest run that match accepts, or nil.
func (g *registry) newest(match func(*run) bool) *run {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := len(g.runs) - 1; i >= 0; i-- {
		if match(g.runs[i]) {
			return g.runs[i]
		}
	}
	return nil
}

// cancel cancels the running run called name, or every running one for "".
func (g *registry) cancel(name string) ([]string, error) {
	var cancelled []string
	for _, r := range g.all() {
		if r.state() == runRunning && (name == "" || r.name() == name) {
			r.cancel()
			cancelled = append(cancelled, r.name())
		}
	}
	if name != "" && len(cancelled) == 0 {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("no running run %q", name))
	}
	return cancelled, nil
}

// cancelAll cancels every run, ended or not (cancelling an ended one is a no-op).
func (g *registry) cancelAll() {
	for _, r := range g.all() {
		r.cancel()
	}
}

// propose lists a pending proposal of r's changes.
func (g *registry) propose(r *run, changes []tools.Change) { g.proposeReviewed(r, changes, "", "") }

// proposeReviewed records r's proposal with what the run-end review said
// of it (agentrun.Outcome's Check and Tests).
func (g *registry) proposeReviewed(r *run, changes []tools.Change, check, tests string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.proposals = append(g.proposals, &proposal{id: r.id, run: r, request: r.request, changes: changes, state: proposalPending,
		check: check, tests: tests})
}

// proposalOf is r's proposal, or nil when it changed nothing.
func (g *registry) proposalOf(r *run) *proposal {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, p := range g.proposals {
		if p.run == r {
			return p
		}
	}
	return nil
}

// proposal finds the proposal called name; "" is the newest pending one.
func (g *registry) proposal(name string) (*proposal, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.proposalLocked(name)
}

func (g *registry) proposalLocked(name string) (*proposal, error) {
	for i := len(g.proposals) - 1; i >= 0; i-- {
		p := g.proposals[i]
		if (name == "" && p.state == proposalPending) || (name != "" && p.name() == name) {
			return p, nil
		}
	}
	if name == "" {
		return nil, jsonrpc2.NewError(codeRequestFailed, "there is no pending proposal")
	}
	return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("no proposal %q", name))
}

// move changes the state of the proposal called name from pending to state,
// refusing when it is no longer pending: this is what keeps a proposal from
// being sent twice.
func (g *registry) move(name string, state proposalState) (*proposal, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, err := g.proposalLocked(name)
	if err != nil {
		return nil, err
	}
	if p.state != proposalPending {
		return nil, jsonrpc2.NewError(codeRequestFailed, fmt.Sprintf("%s is already %s", p.name(), p.state))
	}
	p.state = state
	return p, nil
}

// pendingTouching are the pending proposals that change the file at path.
func (g *registry) pendingTouching(path string) []*proposal {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*proposal
	for _, p := range g.proposals {
		if p.state == proposalPending && slices.ContainsFunc(p.changes, func(c tools.Change) bool { return c.AbsPath == path }) {
			out = append(out, p)
		}
	}
	return out
}

// settle ends an apply: applied, or pending again when the client declined.
func (g *registry) settle(p *proposal, state proposalState) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p.state = state
}

// proposalStatus is one proposal as agent.status lists it.
type proposalStatus struct {
	ID    string        `json:"id"`
	State proposalState `json:"state"`
	Files []string      `json:"files"`
	// Check and Tests are what the run-end review said of it: the
	// language servers' check and the tests it touches.
	Check string `json:"check,omitempty"`
	Tests string `json:"tests,omitempty"`
}

func (g *registry) proposalStatuses() []proposalStatus {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := []proposalStatus{}
	for _, p := range g.proposals {
		ps := proposalStatus{ID: p.name(), State: p.state, Check: p.check, Tests: p.tests}
		for _, c := range p.changes {
			ps.Files = append(ps.Files, c.Path)
		}
		out = append(out, ps)
	}
	return out
}
