package server

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/agent"
)

// keptSessions is how many conversations stay loaded besides those in use:
// the rest are on disk, and are read again when asked for.
const keptSessions = 16

// sessionSet is the workspace's conversations: the ones loaded this
// connection, and the current one, which an ask without a session continues.
// A server that lives for weeks sees many conversations: one no run uses
// and that is not the current one is let go beyond keptSessions.
type sessionSet struct {
	mu      sync.Mutex // guards every field
	store   *agent.SessionStore
	loaded  map[string]*agent.History
	users   map[string]int // runs holding each loaded conversation
	order   []string       // loaded conversations, least recently used first
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
	ss.users, ss.order = map[string]int{}, []string{id}
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
	if loaded {
		ss.use(id)
	}
	ss.mu.Unlock()
	if loaded {
		return id, h, nil
	}
	h, err := store.Load(id)
	if err != nil {
		return "", nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("no session %q (%s lists them)", id, CommandListSessions))
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if raced, ok := ss.loaded[id]; ok {
		ss.use(id)
		return id, raced, nil
	}
	ss.loaded[id] = h
	ss.use(id)
	return id, h, nil
}

// use counts a run holding id and makes it the most recently used; the
// run gives it back with release. Callers hold mu.
func (ss *sessionSet) use(id string) {
	ss.users[id]++
	ss.touch(id)
}

func (ss *sessionSet) touch(id string) {
	if i := slices.Index(ss.order, id); i >= 0 {
		ss.order = slices.Delete(ss.order, i, i+1)
	}
	ss.order = append(ss.order, id)
}

// release gives back what get counted, once the run saved the
// conversation, and lets go of the least recently used ones beyond
// keptSessions that no run holds and that are not the current one.
func (ss *sessionSet) release(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.users[id]--; ss.users[id] <= 0 {
		delete(ss.users, id)
	}
	for i := 0; len(ss.order) > keptSessions && i < len(ss.order); {
		old := ss.order[i]
		if old == ss.current || ss.users[old] > 0 {
			i++
			continue
		}
		delete(ss.loaded, old)
		ss.order = slices.Delete(ss.order, i, i+1)
	}
}

// switchTo makes the session called id the current one.
func (ss *sessionSet) switchTo(id string) (*agent.History, error) {
	_, h, err := ss.get(id)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	ss.current = id
	ss.mu.Unlock()
	ss.release(id) // current now, it stays loaded; get counted a run that is not one
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
	ss.touch(id)
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

// The commands on the conversations.

type sessionResult struct {
	Session string `json:"session"`
}

func (ss *sessionSet) newSession(context.Context, noArgs) (sessionResult, error) {
	return sessionResult{Session: ss.startNew()}, nil
}

type sessionsResult struct {
	Current  string              `json:"current"`
	Sessions []agent.SessionInfo `json:"sessions"`
}

func (ss *sessionSet) listSessions(context.Context, noArgs) (sessionsResult, error) {
	list, err := ss.list()
	if err != nil {
		return sessionsResult{}, jsonrpc2.NewError(codeRequestFailed, err.Error())
	}
	return sessionsResult{Current: ss.currentID(), Sessions: list}, nil
}

// sessionArgs name a session (agent.listSessions lists them).
type sessionArgs struct {
	ID string `json:"id"`
}

type switchResult struct {
	Session  string `json:"session"`
	Messages int    `json:"messages"`
}

// switchSession makes a session the current one, loading it from disk.
func (ss *sessionSet) switchSession(_ context.Context, a sessionArgs) (switchResult, error) {
	if a.ID == "" {
		return switchResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, CommandSwitchSession+" needs a session id: {\"id\": \"…\"} ("+CommandListSessions+" lists them)")
	}
	h, err := ss.switchTo(a.ID)
	if err != nil {
		return switchResult{}, err
	}
	return switchResult{Session: a.ID, Messages: h.Len()}, nil
}
