package acp

import (
	"bytes"
	"encoding/json"
	"sync"
)

// What the current ACP schema has and github.com/coder/acp-go-sdk v0.13.0
// (the newest release) does not: the session/delete method and its
// capability. The filter hands session/delete to the SDK as the extension
// method deleteMethod (the SDK dispatches only "_" names it does not know
// to the agent), and the writer adds sessionCapabilities.delete to the
// answer to initialize. Both go once the SDK has them.
const (
	schemaDeleteMethod = "session/delete"
	deleteMethod       = "_agent-lsp/session/delete"
)

// compat tracks the initialize requests whose answers get the capability.
type compat struct {
	mu      sync.Mutex // guards pending
	pending map[string]bool
}

// renamed is line with its method replaced by deleteMethod when it is a
// session/delete request, else nil.
func (c *compat) renamed(line []byte, m message) []byte {
	if string(bytes.TrimSpace(m.Method)) != `"`+schemaDeleteMethod+`"` {
		return nil
	}
	var whole map[string]json.RawMessage
	if json.Unmarshal(line, &whole) != nil {
		return nil
	}
	whole["method"] = json.RawMessage(`"` + deleteMethod + `"`)
	out, err := json.Marshal(whole)
	if err != nil {
		return nil
	}
	return out
}

// saw notes an initialize request, whose answer the writer completes.
func (c *compat) saw(m message) {
	if string(bytes.TrimSpace(m.Method)) != `"initialize"` || m.ID == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		c.pending = map[string]bool{}
	}
	c.pending[string(bytes.TrimSpace(m.ID))] = true
}

// completed is p with sessionCapabilities.delete added when p answers a
// pending initialize, else p itself.
func (c *compat) completed(p []byte) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 {
		return p
	}
	var resp struct {
		ID     json.RawMessage            `json:"id"`
		Result map[string]json.RawMessage `json:"result"`
	}
	if json.Unmarshal(p, &resp) != nil || resp.Result == nil || !c.pending[string(resp.ID)] {
		return p
	}
	delete(c.pending, string(resp.ID))
	var caps map[string]json.RawMessage
	var sessionCaps map[string]json.RawMessage
	if json.Unmarshal(resp.Result["agentCapabilities"], &caps) != nil || json.Unmarshal(caps["sessionCapabilities"], &sessionCaps) != nil || sessionCaps == nil {
		return p
	}
	sessionCaps["delete"] = json.RawMessage(`{}`)
	caps["sessionCapabilities"], _ = json.Marshal(sessionCaps)
	resp.Result["agentCapabilities"], _ = json.Marshal(caps)
	var whole map[string]json.RawMessage
	if json.Unmarshal(p, &whole) != nil {
		return p
	}
	whole["result"], _ = json.Marshal(resp.Result)
	out, err := json.Marshal(whole)
	if err != nil {
		return p
	}
	return append(out, '\n')
}
