package llm_test

import (
	"context"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

func TestChatInfillerPromptsAndUnfences(t *testing.T) {
	p := llmtest.NewScripted(llmtest.Turn{Text: "```go\nreturn a + b\n```"})
	got, err := llm.ChatInfiller(p).Infill(context.Background(), llm.InfillRequest{Prefix: "func add() {\n\t", Suffix: "\n}"})
	if err != nil || got != "return a + b" {
		t.Fatalf("%q %v", got, err)
	}
	req := p.Requests()[0]
	if req.Messages[0].Text != "func add() {\n\t<CURSOR>\n}" || req.System == "" {
		t.Fatalf("request %+v", req)
	}
}
