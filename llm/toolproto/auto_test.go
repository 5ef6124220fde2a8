package toolproto_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/llm/openai"
	"github.com/agent-lsp/agent-lsp/llm/toolproto"
)

// TestAutoReadsCallsWrittenInText plays a server without a tool parser:
// the model's calls come back as text, in each format models use.
func TestAutoReadsCallsWrittenInText(t *testing.T) {
	tools := []llm.ToolSpec{{Name: "read_file", Schema: json.RawMessage(`{"type":"object"}`)}, {Name: "search", Schema: json.RawMessage(`{"type":"object"}`)}}
	for _, c := range []struct {
		name, text string
		calls      []string // name args
		rest       string
	}{
		{"hermes", "Let me look.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call>\n<tool_call>{\"name\":\"search\",\"arguments\":{\"pattern\":\"x\"}}</tool_call>",
			[]string{`read_file {"path": "a.go"}`, `search {"pattern":"x"}`}, "Let me look."},
		{"TOOL_CALL lines", "TOOL_CALL: {\"name\": \"read_file\", \"args\": {\"path\": \"b.go\"}}", []string{`read_file {"path": "b.go"}`}, ""},
		{"json mode", `{"thought": "read it", "tool_call": {"name": "read_file", "input": {"path": "c.go"}}}`, []string{`read_file {"path": "c.go"}`}, "read it"},
		{"a thought before the call (QwQ, Qwen3 without a reasoning parser)", "<think>\nI should read a.go first.\n</think>\n\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call>",
			[]string{`read_file {"path": "a.go"}`}, ""},
		{"plain answer", "The answer is 42.", nil, "The answer is 42."},
		{"unknown tool stays text", "<tool_call>{\"name\":\"rm_rf\",\"arguments\":{}}</tool_call>", nil, "<tool_call>{\"name\":\"rm_rf\",\"arguments\":{}}</tool_call>"},
		{"broken block stays text", "<tool_call>{\"name\":</tool_call>", nil, "<tool_call>{\"name\":</tool_call>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: c.text})
			base, err := openai.New(openai.Config{Model: "hermes", BaseURL: srv.URL + "/v1", APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := toolproto.AutoWrap(base).Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "go"}}, Tools: tools})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, call := range resp.ToolCalls {
				got = append(got, call.Name+" "+string(call.Args))
			}
			if strings.Join(got, "|") != strings.Join(c.calls, "|") || resp.Text != c.rest {
				t.Fatalf("calls %q text %q", got, resp.Text)
			}
			if (len(c.calls) > 0) != (resp.StopReason == llm.StopToolUse) {
				t.Fatalf("stop %s", resp.StopReason)
			}
			if _, native := srv.Requests()[0]["tools"]; !native {
				t.Fatal("auto must keep sending the tools natively")
			}
		})
	}
}
