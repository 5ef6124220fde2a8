package server_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// TestCommandWordsThatAreNotArguments: Helix passes words; a word that is not
// a note number must not read as "forget every note", and a switch needs an id.
func TestCommandWordsThatAreNotArguments(t *testing.T) {
	state := t.TempDir()
	f := newFixture(t, nil, nil, map[string]string{"XDG_STATE_HOME": state})
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	memory := agent.NewMemory(agent.StateDir(func(k string) string { return map[string]string{"XDG_STATE_HOME": state}[k] }, f.root))
	for _, n := range []string{"first note", "second note"} {
		if err := memory.Add(n); err != nil {
			t.Fatal(err)
		}
	}
	for _, word := range []string{"abc", "0", "-1"} {
		err := f.editor.Command(server.CommandForget, word, nil)
		if err == nil || !strings.Contains(err.Error(), "not a note number") {
			t.Errorf("agent.forget %q: %v, want it refused", word, err)
		}
	}
	if notes := memory.Notes(); len(notes) != 2 {
		t.Fatalf("refused forgets lost notes: %q", notes)
	}
	if err := f.editor.Command(server.CommandSwitchSession, map[string]any{}, nil); err == nil || !strings.Contains(err.Error(), "needs a session id") {
		t.Errorf("agent.switchSession {}: %v", err)
	}
	if err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": 7}, nil); err == nil || !strings.Contains(err.Error(), "invalid arguments") {
		t.Errorf("agent.applyProposal {id: 7}: %v", err)
	}
	var forgot struct {
		Forgotten int      `json:"forgotten"`
		Notes     []string `json:"notes"`
	}
	if err := f.editor.Command(server.CommandForget, "2", &forgot); err != nil || forgot.Forgotten != 1 || len(forgot.Notes) != 1 || forgot.Notes[0] != "first note" {
		t.Fatalf("agent.forget 2: %+v %v", forgot, err)
	}
}
