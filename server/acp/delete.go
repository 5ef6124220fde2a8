package acp

import (
	"context"
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent"
)

// deleteRequest is session/delete's params (the schema's DeleteSessionRequest).
type deleteRequest struct {
	SessionID sdk.SessionId `json:"sessionId"`
}

// HandleExtensionMethod serves the methods the SDK does not know: only
// session/delete, which the filter hands over as deleteMethod.
func (a *Agent) HandleExtensionMethod(ctx context.Context, method string, params json.RawMessage) (resp any, err error) {
	defer guard(a.log, method, &err)
	if method != deleteMethod {
		return nil, sdk.NewMethodNotFound(method)
	}
	var p deleteRequest
	if err := json.Unmarshal(params, &p); err != nil || p.SessionID == "" {
		return nil, invalid("session/delete takes {sessionId}")
	}
	return map[string]any{}, a.deleteSession(p.SessionID)
}

// deleteSession ends the session called id if it is open and removes it
// from the store of the workspace it was listed or opened in.
func (a *Agent) deleteSession(id sdk.SessionId) error {
	a.mu.Lock()
	open := a.sessions[id]
	cwds := append([]string(nil), a.listed...)
	a.mu.Unlock()
	if open != nil {
		cwds = append([]string{open.cwd}, cwds...)
		a.settle(id)
		a.mu.Lock()
		delete(a.sessions, id)
		a.mu.Unlock()
	}
	for _, cwd := range cwds {
		store := agent.NewSessionStore(agent.StateDir(a.opts.Env, cwd))
		if _, err := store.Load(string(id)); err != nil {
			continue
		}
		if err := store.Delete(string(id)); err != nil {
			return requestError(err)
		}
		return nil
	}
	if open != nil {
		return nil // never saved: ending it was all
	}
	return invalid("unknown session " + quote(string(id)) + " (session/list lists the ones that can be deleted)")
}

// noteListed remembers a workspace whose sessions the client listed, where
// session/delete, which names no workspace, looks for them.
func (a *Agent) noteListed(cwd string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.listed {
		if c == cwd {
			return
		}
	}
	a.listed = append(a.listed, cwd)
}
