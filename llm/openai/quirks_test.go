package openai_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/llm/openai"
)

func quirkProvider(t *testing.T, srv *llmtest.Server) *openai.Provider {
	t.Helper()
	p, err := openai.New(openai.Config{Model: "qwen-coder", BaseURL: srv.URL + "/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCompatibleServersQuirks: calls reported with finish_reason "stop",
// without ids, with empty-string arguments; reasoning_content beside the
// answer. Streaming and not, through the real SDK.
func TestCompatibleServersQuirks(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "non-streaming", true: "streaming"}[streaming], func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t,
				llmtest.Turn{Finish: "stop", NoCallIDs: true, Reasoning: "The user wants the files listed.",
					Calls: []llmtest.Call{{Name: "list_files", Args: ""}, {Name: "read_file", Args: `{"path":"a.go"}`}}},
			)
			var text, reasoning strings.Builder
			req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "list"}}, OnReasoning: func(d string) { reasoning.WriteString(d) }}
			if streaming {
				req.OnText = func(d string) { text.WriteString(d) }
			}
			resp, err := quirkProvider(t, srv).Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != llm.StopToolUse || len(resp.ToolCalls) != 2 {
				t.Fatalf("calls not recognised: %+v", resp)
			}
			a, b := resp.ToolCalls[0], resp.ToolCalls[1]
			if a.ID == "" || b.ID == "" || a.ID == b.ID || string(a.Args) != "{}" {
				t.Fatalf("ids %q %q, args %s", a.ID, b.ID, a.Args)
			}
			if resp.Reasoning != "The user wants the files listed." || reasoning.String() != resp.Reasoning {
				t.Fatalf("reasoning %q (streamed %q)", resp.Reasoning, reasoning.String())
			}
			if resp.Usage.ReasoningTokens != 3 || resp.Usage.CachedTokens != 2 {
				t.Fatalf("usage %+v", resp.Usage)
			}
			if strings.Contains(resp.Text+text.String(), "user wants") {
				t.Fatalf("reasoning leaked into the answer: %q", resp.Text)
			}
		})
	}
}

func TestThinkingIsReasoningEffort(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "ok"}, llmtest.Turn{Text: "ok"})
	for _, level := range []string{"low", ""} {
		p, err := openai.New(openai.Config{Model: "o4-mini", BaseURL: srv.URL + "/v1", APIKey: "k", Thinking: level})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "q"}}}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	if reqs[0]["reasoning_effort"] != "low" || reqs[1]["reasoning_effort"] != nil {
		t.Fatalf("reasoning_effort %v then %v", reqs[0]["reasoning_effort"], reqs[1]["reasoning_effort"])
	}
}
