package agent_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/llm/openai"
	"github.com/agent-lsp/agent-lsp/tools"
)

// TestThoughtInContentIsReasoning: a recorded Groq stream of a DeepSeek-R1
// distill, its thought in the content, through the real SDK and the loop:
// the streamed text, the answer and the history hold the answer alone; the
// thought is reasoning events and the trace's; the usage is the call's own.
func TestThoughtInContentIsReasoning(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.GroqR1Stream())
	p, err := openai.New(openai.Config{Model: "deepseek-r1-distill-llama-70b", BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder
	var trace bytes.Buffer
	traceFn := agent.TraceWriter(&trace, p.Name())
	a := agent.New(agent.Config{
		Provider: p, Tools: tools.NewDefaultRegistry(workspace(t, nil), tools.NewPolicy(nil), nil, tools.CommandLimits{}),
		Stream: true, OnEvent: func(e agent.Event) { rec.on(e); traceFn(e) },
	})
	var h agent.History
	out, err := a.Run(context.Background(), &h, "what is 2 + 2?")
	if err != nil {
		t.Fatal(err)
	}
	var text, reasoning strings.Builder
	for _, e := range rec.events {
		switch e.Kind {
		case agent.EventTextDelta:
			text.WriteString(e.Text)
		case agent.EventReasoningDelta:
			reasoning.WriteString(e.Text)
		}
	}
	if out.Answer != llmtest.RecordedAnswer || text.String() != llmtest.RecordedAnswer {
		t.Fatalf("answer %q, streamed text %q", out.Answer, text.String())
	}
	if strings.TrimSpace(reasoning.String()) != llmtest.RecordedThought || !strings.Contains(trace.String(), "(reasoning) "+llmtest.RecordedThought) {
		t.Fatalf("reasoning %q, trace:\n%s", reasoning.String(), trace.String())
	}
	if last := h.Messages()[len(h.Messages())-1]; last.Text != llmtest.RecordedAnswer {
		t.Fatalf("history keeps %q", last.Text)
	}
	if out.Usage.InputTokens != llmtest.RecordedInput || out.Usage.OutputTokens != llmtest.RecordedOutput {
		t.Fatalf("usage %+v", out.Usage)
	}
}
