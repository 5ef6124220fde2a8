package server

import (
	"fmt"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
)

// A server that sees many conversations keeps only the recent ones loaded;
// one it let go is read again from disk with what it said, and neither the
// current one nor one a run still holds is ever let go.
func TestSessionsBeyondTheKeptOnesAreReadAgainFromDisk(t *testing.T) {
	var ss sessionSet
	ss.open(agent.NewSessionStore(t.TempDir()))
	held, _, err := ss.get("") // a run holds the first conversation throughout
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 3 * keptSessions {
		id := ss.startNew()
		_, h, err := ss.get(id)
		if err != nil {
			t.Fatal(err)
		}
		h.AddUser(fmt.Sprintf("question %d", i))
		if err := ss.save(id, h); err != nil {
			t.Fatal(err)
		}
		ss.release(id)
		ids = append(ids, id)
	}
	ss.mu.Lock()
	loaded := len(ss.loaded)
	_, heldLoaded := ss.loaded[held]
	_, currentLoaded := ss.loaded[ss.current]
	ss.mu.Unlock()
	if loaded > keptSessions+1 {
		t.Errorf("%d conversations loaded, want at most %d", loaded, keptSessions+1)
	}
	if !heldLoaded || !currentLoaded {
		t.Errorf("let go of the one a run holds (%v) or the current one (%v)", !heldLoaded, !currentLoaded)
	}
	_, h, err := ss.get(ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if h.Len() != 1 {
		t.Errorf("the conversation read again has %d messages, want 1", h.Len())
	}
	// A switch to it makes it current: it stays, however many follow.
	ss.release(ids[0])
	if _, err := ss.switchTo(ids[1]); err != nil {
		t.Fatal(err)
	}
	ss.mu.Lock()
	users := ss.users[ids[1]]
	ss.mu.Unlock()
	if users != 0 {
		t.Errorf("a switch counted %d runs holding the conversation", users)
	}
}
