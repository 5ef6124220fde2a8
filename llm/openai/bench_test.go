package openai_test

import (
	"context"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

// BenchmarkRecordedStream: one streamed call of a recorded shape (its
// thought in the content, cut across chunks) through the SDK, the splitter
// and the usage, for the splitter's cost beside the rest.
func BenchmarkRecordedStream(b *testing.B) {
	srv := llmtest.NewOpenAIResponder(b, func(map[string]any) llmtest.Turn { return llmtest.LlamaCppQwen3Stream() })
	p := newProvider(b, srv)
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "2 + 2?"}}, OnText: func(string) {}, OnReasoning: func(string) {}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Chat(context.Background(), req); err != nil {
			b.Fatal(err)
		}
		srv.Forget()
	}
}
