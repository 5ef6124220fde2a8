package server

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/tools"
)

// TestTheRegistryForgetsOldEndedRunsButNotWhatTheUserMustDecide: a server
// lives as long as the editor, so ended runs and settled proposals are
// forgotten past keepEnded, while a running run and a pending proposal
// (and its run) are never.
func TestTheRegistryForgetsOldEndedRunsButNotWhatTheUserMustDecide(t *testing.T) {
	var g registry
	running := newRun("s", "still going", "", config.Settings{}, nil)
	g.add(running, false)
	pendingRun := newRun("s", "waits for the user", "", config.Settings{}, nil)
	g.add(pendingRun, false)
	pendingRun.st = runCompleted
	g.propose(pendingRun, []tools.Change{{Path: "a.txt", New: "x"}})
	for range 3 * keepEnded {
		r := newRun("s", "done", "", config.Settings{}, nil)
		g.add(r, false)
		r.st = runCompleted
		g.propose(r, []tools.Change{{Path: "a.txt", New: "y"}})
		g.settle(g.proposalOf(r), proposalApplied)
	}
	g.add(newRun("s", "last", "", config.Settings{}, nil), false) // prunes
	if n := len(g.all()); n > keepEnded+3 {
		t.Errorf("%d runs kept, want at most %d", n, keepEnded+3)
	}
	if got := g.newest(func(r *run) bool { return r == running }); got == nil {
		t.Error("the running run was forgotten")
	}
	if p, err := g.proposal(pendingRun.proposalName()); err != nil || p.state != proposalPending {
		t.Errorf("the pending proposal was forgotten: %v", err)
	}
	if g.newest(func(r *run) bool { return r == pendingRun }) == nil {
		t.Error("the pending proposal's run was forgotten")
	}
}
