package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/gemini"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

func newProvider(t *testing.T, srv *llmtest.Server) *gemini.Provider {
	t.Helper()
	p, err := gemini.New(context.Background(), gemini.Config{Model: "gemini-test", APIKey: "test-key", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSeedScenarioOnTheWire(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "non-streaming", true: "streaming"}[streaming], func(t *testing.T) {
			srv := llmtest.NewGeminiServer(t,
				llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"hello.py"}`}}},
				llmtest.Turn{Text: "This file defines greet(), which returns a greeting."},
			)
			p := newProvider(t, srv)
			var deltas []string
			req := llm.Request{
				System:   "You are a coding agent.",
				Messages: []llm.Message{{Role: llm.RoleUser, Text: "read hello.py and explain it"}},
				Tools: []llm.ToolSpec{{Name: "read_file", Description: "Read a file",
					Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
			}
			if streaming {
				req.OnText = func(d string) { deltas = append(deltas, d) }
			}
			resp, err := p.Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != llm.StopToolUse || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "read_file" {
				t.Fatalf("first answer: %+v", resp)
			}
			call := resp.ToolCalls[0]
			var args map[string]string
			if err := json.Unmarshal(call.Args, &args); err != nil || args["path"] != "hello.py" || call.ID == "" {
				t.Fatalf("tool call: %+v %s", call, call.Args)
			}
			req.Messages = append(req.Messages,
				llm.Message{Role: llm.RoleAssistant, ToolCalls: resp.ToolCalls},
				llm.Message{Role: llm.RoleTool, ToolResults: []llm.ToolResult{{CallID: call.ID, Name: "read_file", Content: "def greet(): return 'Hello, World!'"}}},
			)
			resp, err = p.Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != llm.StopEndTurn || resp.Text != "This file defines greet(), which returns a greeting." {
				t.Fatalf("second answer: %+v", resp)
			}
			if streaming && (len(deltas) < 4 || strings.Join(deltas, "") != resp.Text) {
				t.Fatalf("deltas: %q", deltas)
			}
			second := srv.Requests()[1]
			if si := second["systemInstruction"].(map[string]any); !strings.Contains(string(mustJSON(si)), "coding agent") {
				t.Fatalf("system instruction: %v", si)
			}
			contents := second["contents"].([]any)
			if len(contents) != 3 {
				t.Fatalf("%d contents: %v", len(contents), contents)
			}
			model := contents[1].(map[string]any)
			fc := model["parts"].([]any)[0].(map[string]any)["functionCall"].(map[string]any)
			if model["role"] != "model" || fc["name"] != "read_file" {
				t.Fatalf("model turn: %v", model)
			}
			fr := contents[2].(map[string]any)["parts"].([]any)[0].(map[string]any)["functionResponse"].(map[string]any)
			if fr["name"] != "read_file" || !strings.Contains(string(mustJSON(fr["response"])), "Hello, World!") {
				t.Fatalf("function response: %v", fr)
			}
			decl := srv.Requests()[0]["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)[0].(map[string]any)
			if decl["name"] != "read_file" || decl["parametersJsonSchema"] == nil {
				t.Fatalf("declaration: %v", decl)
			}
		})
	}
}

func TestErrorsAreTyped(t *testing.T) {
	srv := llmtest.NewGeminiServer(t,
		llmtest.Turn{Status: 429, Body: `{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED",
			"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"12s"}]}}`},
		llmtest.Turn{Status: 400, Body: `{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`},
		llmtest.Turn{Status: 403, Body: `{"error":{"code":403,"message":"API key not valid","status":"PERMISSION_DENIED"}}`},
	)
	p := newProvider(t, srv)
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}
	_, err := p.Chat(context.Background(), req)
	var e *llm.Error
	if !errors.Is(err, llm.ErrRateLimited) || !errors.As(err, &e) || e.RetryAfter != 12*time.Second {
		t.Fatalf("429: %v", err)
	}
	if _, err := p.Chat(context.Background(), req); !errors.Is(err, llm.ErrContextTooLong) {
		t.Fatalf("context too long: %v", err)
	}
	if _, err := p.Chat(context.Background(), req); !errors.Is(err, llm.ErrUnauthorized) {
		t.Fatalf("403: %v", err)
	}
}

func TestMissingKeyIsAClearError(t *testing.T) {
	_, err := gemini.New(context.Background(), gemini.Config{Model: "gemini-2.5-flash"})
	if err == nil || !strings.Contains(err.Error(), "GEMINI_API_KEY") {
		t.Fatalf("err = %v", err)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// TestThoughtInTextIsReasoning: a model served without thought parts that
// writes its thought into the text (Gemma through the Gemini API) is read
// as elsewhere: reasoning, never the answer.
func TestThoughtInTextIsReasoning(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "non-streaming", true: "streaming"}[streaming], func(t *testing.T) {
			srv := llmtest.NewGeminiServer(t, llmtest.Turn{Text: "<think>\nThe user asks for a sum.\n</think>\n\nIt is 4."})
			var text, reasoning strings.Builder
			req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "2 + 2?"}}, OnReasoning: func(d string) { reasoning.WriteString(d) }}
			if streaming {
				req.OnText = func(d string) { text.WriteString(d) }
			}
			resp, err := newProvider(t, srv).Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != "It is 4." || resp.Reasoning != "The user asks for a sum." || strings.TrimSpace(reasoning.String()) != resp.Reasoning {
				t.Fatalf("text %q, reasoning %q (streamed %q)", resp.Text, resp.Reasoning, reasoning.String())
			}
			if streaming && text.String() != "It is 4." {
				t.Fatalf("streamed text %q", text.String())
			}
		})
	}
}

// A server that cannot be reached is named in the error without the
// credentials of its base URL.
func TestUnreachableServerErrorHidesCredentials(t *testing.T) {
	p, err := gemini.New(context.Background(), gemini.Config{Model: "gemini-test", APIKey: "test-key",
		BaseURL: "http://TOKENUSER:PASSWORD@127.0.0.1:1/?key=QUERYKEY"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}})
	if err == nil || !strings.Contains(err.Error(), "***@127.0.0.1:1") {
		t.Fatalf("error %v does not name the server, redacted", err)
	}
	for _, secret := range []string{"TOKENUSER", "PASSWORD", "QUERYKEY"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%s shows in %q", secret, err)
		}
	}
}
