package agent

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/llm"
)

func TestAnswerPending(t *testing.T) {
	var h History
	if h.AnswerPending("x") != 0 {
		t.Error("an empty history has nothing to answer")
	}
	h.AddUser("task")
	h.AddAssistant(llm.Response{ToolCalls: []llm.ToolCall{{ID: "a", Name: "execute_command"}, {ID: "b", Name: "read_file"}}})
	if n := h.AnswerPending("cancelled by the user"); n != 2 {
		t.Fatalf("answered %d, want 2", n)
	}
	last := h.Messages()[h.Len()-1]
	if last.Role != llm.RoleTool || len(last.ToolResults) != 2 || last.ToolResults[1].CallID != "b" || !last.ToolResults[0].IsError {
		t.Errorf("results = %+v", last)
	}
	if h.AnswerPending("again") != 0 {
		t.Error("answered calls twice")
	}
}
