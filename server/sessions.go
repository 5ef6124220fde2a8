package server

import (
	"fmt"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/agent"
)

// sessionSet is the workspace's conversations: the ones loaded this
// connection, and the current one, which an ask without a session continues.
type sessionSet struct {
	mu      sync.Mutex // guards every field
	store   *agent.SessionStore
	loaded  map[string]*agent.History
	current string
}

// open continues the workspace's latest conversation, as an editor restart
// should, or starts one.
func (ss *sessionSet) open(store *agent.SessionStore) {
	id, history := "", &agent.History{}
	if list, err := store.List(); err == nil && len(list) > 0 {
		if h, err := store.Load(list[0].ID); err == nil {
			id, history = list[0].ID, h
		}
	}
	if id == "" {
		id = store.NewID()
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.store, ss.loaded, ss.current = store, map[string]*agent.History{id: history}, id
}

// get returns the session called id ("" the current one), reading it from
// disk the first time (one from agent.listSessions no run used yet).
func (ss *sessionSet) get(id string) (string, *agent.History, error) {
	ss.mu.Lock()
	if id == "" {
		id = ss.current
	}
	h, loaded := ss.loaded[id]
	store := ss.store
	ss.mu.Unlock()
	if loaded {
		return id, h, nil
	}
	h, err := store.Load(id)
	if err != nil {
		return "", nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("no session %q (agent.listSessions lists them)", id))
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if raced, ok := ss.loaded[id]; ok {
		return id, raced, nil
	}
	ss.loaded[id] = h
	return id, h, nil
}

// switchTo makes the session called id the current one.
func (ss *sessionSet) switchTo(id string) (*agent.History, error) {
	_, h, err := ss.get(id)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.current = id
	return h, nil
}

// startNew makes a fresh, empty session the current one.
func (ss *sessionSet) startNew() string {
	ss.mu.Lock()
	store := ss.store
	ss.mu.Unlock()
	id := store.NewID()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.loaded[id], ss.current = &agent.History{}, id
	return id
}

func (ss *sessionSet) currentID() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.current
}

// list is the stored sessions, newest first.
func (ss *sessionSet) list() ([]agent.SessionInfo, error) {
	ss.mu.Lock()
	store := ss.store
	ss.mu.Unlock()
	return store.List()
}

// save writes the session called id.
func (ss *sessionSet) save(id string, h *agent.History) error {
	ss.mu.Lock()
	store := ss.store
	ss.mu.Unlock()
	return store.Save(id, h)
}
