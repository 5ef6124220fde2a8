package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/llm/openai"
)

var readFileSpec = llm.ToolSpec{
	Name: "read_file", Description: "Read a file",
	Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
}

func newProvider(t testing.TB, srv *llmtest.Server) *openai.Provider {
	t.Helper()
	p, err := openai.New(openai.Config{Model: "gpt-test", BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The seed scenario at the wire: a tool call, then the answer once the tool
// result, tied to the call id, is in the history.
func TestSeedScenarioOnTheWire(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "non-streaming", true: "streaming"}[streaming], func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t,
				llmtest.Turn{Text: "I will read the file.", Calls: []llmtest.Call{{ID: "call_abc123", Name: "read_file", Args: `{"path": "hello.py"}`}}},
				llmtest.Turn{Text: "This file defines greet(), which returns a greeting."},
			)
			p := newProvider(t, srv)
			var deltas []string
			req := llm.Request{
				System:   "You are a coding agent.",
				Messages: []llm.Message{{Role: llm.RoleUser, Text: "read hello.py and explain it"}},
				Tools:    []llm.ToolSpec{readFileSpec},
			}
			if streaming {
				req.OnText = func(d string) { deltas = append(deltas, d) }
			}
			resp, err := p.Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != llm.StopToolUse || len(resp.ToolCalls) != 1 {
				t.Fatalf("first answer: %+v", resp)
			}
			call := resp.ToolCalls[0]
			if call.ID != "call_abc123" || call.Name != "read_file" || string(call.Args) != `{"path": "hello.py"}` {
				t.Fatalf("tool call: %+v (%s)", call, call.Args)
			}
			req.Messages = append(req.Messages,
				llm.Message{Role: llm.RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls},
				llm.Message{Role: llm.RoleTool, ToolResults: []llm.ToolResult{{CallID: "call_abc123", Name: "read_file", Content: "def greet():\n    return 'Hello, World!'"}}},
			)
			resp, err = p.Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != llm.StopEndTurn || resp.Text != "This file defines greet(), which returns a greeting." || resp.Usage.InputTokens <= 0 || resp.Usage.OutputTokens != 5 {
				t.Fatalf("second answer: %+v", resp)
			}
			if streaming && strings.Join(deltas, "") != "I will read the file.This file defines greet(), which returns a greeting." || streaming && len(deltas) < 4 {
				t.Fatalf("deltas: %q", deltas)
			}
			bodies := srv.Requests()
			if len(bodies) != 2 {
				t.Fatalf("%d requests", len(bodies))
			}
			first := bodies[0]
			tools := first["tools"].([]any)
			fn := tools[0].(map[string]any)["function"].(map[string]any)
			if fn["name"] != "read_file" || first["model"] != "gpt-test" || tools[0].(map[string]any)["type"] != "function" ||
				fn["description"] != readFileSpec.Description || fn["parameters"].(map[string]any)["type"] != "object" {
				t.Fatalf("first request: %v", first)
			}
			msgs := bodies[1]["messages"].([]any)
			if len(msgs) != 4 {
				t.Fatalf("second request has %d messages: %v", len(msgs), msgs)
			}
			if m := msgs[0].(map[string]any); m["role"] != "system" {
				t.Fatalf("system message: %v", m)
			}
			asst := msgs[2].(map[string]any)
			calls := asst["tool_calls"].([]any)
			if asst["role"] != "assistant" || calls[0].(map[string]any)["id"] != "call_abc123" {
				t.Fatalf("assistant message: %v", asst)
			}
			toolMsg := msgs[3].(map[string]any)
			if toolMsg["role"] != "tool" || toolMsg["tool_call_id"] != "call_abc123" || !strings.Contains(toolMsg["content"].(string), "Hello, World!") {
				t.Fatalf("tool result message: %v", toolMsg)
			}
		})
	}
}

func TestErrorsAreTyped(t *testing.T) {
	cases := []struct {
		name  string
		turn  llmtest.Turn
		want  error
		after time.Duration
	}{
		{"rate limited", llmtest.Turn{Status: 429, Header: map[string]string{"Retry-After": "7"},
			Body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`}, llm.ErrRateLimited, 7 * time.Second},
		{"unauthorized", llmtest.Turn{Status: 401, Body: `{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}`}, llm.ErrUnauthorized, 0},
		{"context too long", llmtest.Turn{Status: 400, Body: `{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}`}, llm.ErrContextTooLong, 0},
		{"bad request", llmtest.Turn{Status: 400, Body: `{"error":{"message":"Invalid schema","type":"invalid_request_error"}}`}, llm.ErrBadRequest, 0},
		{"unavailable", llmtest.Turn{Status: 503, Body: `{"error":{"message":"overloaded"}}`}, llm.ErrUnavailable, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t, c.turn)
			_, err := newProvider(t, srv).Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}})
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			var e *llm.Error
			if !errors.As(err, &e) || e.RetryAfter != c.after || e.Provider != "openai:gpt-test" {
				t.Fatalf("error detail: %+v", e)
			}
			if srv.Remaining() != 0 || len(srv.Requests()) != 1 {
				t.Fatalf("the SDK retried on its own: %d requests", len(srv.Requests()))
			}
		})
	}
}

func TestUnreachableServerIsUnavailable(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	srv.Close()
	_, err := newProvider(t, srv).Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}})
	if !errors.Is(err, llm.ErrUnavailable) || !llm.Transient(err) {
		t.Fatalf("err = %v, want a transient unavailable error", err)
	}
}

func TestMissingModelIsAClearError(t *testing.T) {
	if _, err := openai.New(openai.Config{}); err == nil || !strings.Contains(err.Error(), "AGENT_LSP_MODEL") {
		t.Fatalf("err = %v", err)
	}
}

// A tool whose schema is not JSON is an error before anything is sent.
func TestToolWithBrokenSchemaIsRefused(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	p, err := openai.New(openai.Config{Model: "gpt-test", APIKey: "k", BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Chat(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}},
		Tools:    []llm.ToolSpec{{Name: "broken", Description: "d", Schema: json.RawMessage(`{"type":`)}},
	})
	if err == nil || !strings.Contains(err.Error(), "schema of tool broken is not JSON") {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}
