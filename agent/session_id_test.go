package agent_test

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
)

// TestSessionIDsInOneSecondStayDistinct: ids issued in a burst (an ACP
// client opening sessions) are distinct, each found without checking every
// earlier one again.
func TestSessionIDsInOneSecondStayDistinct(t *testing.T) {
	store := agent.NewSessionStore(t.TempDir())
	seen := map[string]bool{}
	for range 300 {
		id := store.NewID()
		if seen[id] {
			t.Fatalf("%s issued twice", id)
		}
		seen[id] = true
	}
}
