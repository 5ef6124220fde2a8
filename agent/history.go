package agent

import (
	"sync"

	"github.com/agent-lsp/agent-lsp/llm"
)

// History is the conversation sent to the model on every THINK: the model is
// stateless, so the whole context travels each time. Not safe for concurrent
// use; one run owns it at a time.
type History struct {
	msgs []llm.Message

	// The aside may be set by a wire while no run holds the history (the
	// user applied a proposal), so it has its own lock.
	asideMu sync.Mutex
	aside   string // for the next task (SetAside)
}

// AddUser appends a user message.
func (h *History) AddUser(text string) {
	h.msgs = append(h.msgs, llm.Message{Role: llm.RoleUser, Text: text})
}

// AddAssistant appends the model's answer, tool calls included.
func (h *History) AddAssistant(resp llm.Response) {
	h.msgs = append(h.msgs, llm.Message{Role: llm.RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls, Opaque: resp.Opaque})
}

// AddToolResults appends the observations answering the last assistant message.
func (h *History) AddToolResults(results []llm.ToolResult) {
	h.msgs = append(h.msgs, llm.Message{Role: llm.RoleTool, ToolResults: results})
}

// Messages returns the history. The slice is shared: callers must not modify it.
func (h *History) Messages() []llm.Message { return h.msgs }

// Len is the number of messages.
func (h *History) Len() int { return len(h.msgs) }

// SetAside keeps a word for the conversation's next task (what became of
// the last one's changes, say), replacing any not yet said; TakeAside
// returns it once. It is the session's, not the model's: it is not saved.
func (h *History) SetAside(note string) {
	h.asideMu.Lock()
	defer h.asideMu.Unlock()
	h.aside = note
}

// TakeAside returns the word SetAside kept, once, or "".
func (h *History) TakeAside() string {
	h.asideMu.Lock()
	defer h.asideMu.Unlock()
	note := h.aside
	h.aside = ""
	return note
}
