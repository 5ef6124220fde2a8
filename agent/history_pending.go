package agent

import "github.com/agent-lsp/agent-lsp/llm"

// AnswerPending gives each tool call of the last message that has no
// result one saying note, and returns how many it answered. A run
// cancelled while its tools ran leaves such calls at the end of the
// history, and providers refuse a history whose calls lack results: a
// follow-up in the same conversation must answer them first.
func (h *History) AnswerPending(note string) int {
	if len(h.msgs) == 0 {
		return 0
	}
	last := h.msgs[len(h.msgs)-1]
	if last.Role != llm.RoleAssistant || len(last.ToolCalls) == 0 {
		return 0
	}
	results := make([]llm.ToolResult, len(last.ToolCalls))
	for i, c := range last.ToolCalls {
		results[i] = llm.ToolResult{CallID: c.ID, Name: c.Name, Content: note, IsError: true}
	}
	h.AddToolResults(results)
	return len(results)
}
