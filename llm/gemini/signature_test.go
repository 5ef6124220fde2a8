package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/gemini"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

var readFileSpec = []llm.ToolSpec{{Name: "read_file", Description: "Read a file",
	Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}

func gemini3(t *testing.T, srv *llmtest.Server) *gemini.Provider {
	t.Helper()
	p, err := gemini.New(context.Background(), gemini.Config{Model: "gemini-3-pro-preview", APIKey: "test-key", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// assistant is what the agent's history keeps of a response.
func assistant(resp llm.Response) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls, Opaque: resp.Opaque}
}

func results(calls []llm.ToolCall) llm.Message {
	m := llm.Message{Role: llm.RoleTool}
	for _, c := range calls {
		m.ToolResults = append(m.ToolResults, llm.ToolResult{CallID: c.ID, Name: c.Name, Content: "contents of a file"})
	}
	return m
}

// TestGemini3ToolLoopKeepsThoughtSignatures is the loop that failed on its
// second request: parallel calls (only the first signed), then one more
// step, then the answer, against a fake that refuses what the API refuses.
func TestGemini3ToolLoopKeepsThoughtSignatures(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "non-streaming", true: "streaming"}[streaming], func(t *testing.T) {
			srv := llmtest.NewGemini3Server(t,
				llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.go"}`}, {Name: "read_file", Args: `{"path":"b.go"}`}}},
				llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"c.go"}`}}},
				llmtest.Turn{Text: "All three files read."},
				llmtest.Turn{Text: "A follow-up answer."},
			)
			p := gemini3(t, srv)
			req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "read the files"}}, Tools: readFileSpec}
			if streaming {
				req.OnText = func(string) {}
			}
			for step := 1; step <= 3; step++ {
				resp, err := p.Chat(context.Background(), req)
				if err != nil {
					t.Fatalf("request %d: %v", step, err)
				}
				req.Messages = append(req.Messages, assistant(resp))
				if resp.StopReason == llm.StopEndTurn {
					if resp.Opaque == nil || len(resp.Opaque.TextSignature) == 0 {
						t.Error("the final text's signature was not kept")
					}
					break
				}
				if len(resp.ToolCalls[0].Signature) == 0 || (len(resp.ToolCalls) > 1 && len(resp.ToolCalls[1].Signature) != 0) {
					t.Fatalf("signatures not kept exactly as sent: %+v", resp.ToolCalls)
				}
				req.Messages = append(req.Messages, results(resp.ToolCalls))
			}
			// The conversation goes on after a session is saved and loaded.
			saved, err := json.Marshal(req.Messages)
			if err != nil {
				t.Fatal(err)
			}
			var loaded []llm.Message
			if err := json.Unmarshal(saved, &loaded); err != nil {
				t.Fatal(err)
			}
			req.Messages = append(loaded, llm.Message{Role: llm.RoleUser, Text: "and now?"})
			if _, err := p.Chat(context.Background(), req); err != nil {
				t.Fatalf("after a reload: %v", err)
			}
			if n := len(srv.Requests()); n != 4 {
				t.Fatalf("%d requests, want 4", n)
			}
		})
	}
}

func TestGemini3RefusesCallsWithoutTheirSignature(t *testing.T) {
	srv := llmtest.NewGemini3Server(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.go"}`}}},
		llmtest.Turn{Text: "unreachable"},
	)
	p := gemini3(t, srv)
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "read a.go"}}, Tools: readFileSpec}
	resp, err := p.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	resp.ToolCalls[0].Signature = []byte("not the one it sent")
	req.Messages = append(req.Messages, assistant(resp), results(resp.ToolCalls))
	_, err = p.Chat(context.Background(), req)
	if !errors.Is(err, llm.ErrBadRequest) || !strings.Contains(err.Error(), "thought_signature") {
		t.Fatalf("a changed signature must be refused as the API does, got %v", err)
	}
}

// TestGemini3AfterAFallback continues on Gemini 3 a turn another model
// began: its calls have no signature Gemini could accept, so the current
// turn's get the documented sentinel, and another model's are never sent.
func TestGemini3AfterAFallback(t *testing.T) {
	srv := llmtest.NewGemini3Server(t, llmtest.Turn{Text: "continued"})
	p := gemini3(t, srv)
	other := llm.Message{Role: llm.RoleAssistant, Opaque: &llm.Opaque{Origin: "openai:gpt-test"},
		ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Args: json.RawMessage(`{"path":"a.go"}`), Signature: []byte("openai-opaque")}}}
	older := llm.Message{Role: llm.RoleAssistant, Opaque: &llm.Opaque{Origin: "gemini:gemini-2.5-flash", TextSignature: []byte("from-2.5")},
		ToolCalls: []llm.ToolCall{{ID: "call_0", Name: "read_file", Args: json.RawMessage(`{"path":"z.go"}`), Signature: []byte("from-2.5")}}}
	req := llm.Request{Tools: readFileSpec, Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "an earlier task"}, older, results(older.ToolCalls), {Role: llm.RoleAssistant, Text: "done before"},
		{Role: llm.RoleUser, Text: "read a.go"}, other, results(other.ToolCalls),
	}}
	if _, err := p.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	raw := string(srv.RawRequests()[0])
	if strings.Contains(raw, "b3BlbmFpLW9wYXF1ZQ") || strings.Contains(raw, "ZnJvbS0yLjU") {
		t.Fatalf("another model's signature was sent:\n%s", raw)
	}
}

func TestGeminiThoughtsAreReasoningNotAnswer(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		srv := llmtest.NewGemini3Server(t, llmtest.Turn{Reasoning: "**Weighing the options** I should read the file first.", Text: "The answer."})
		p := gemini3(t, srv)
		var text, reasoning strings.Builder
		req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "q"}}, OnReasoning: func(d string) { reasoning.WriteString(d) }}
		if streaming {
			req.OnText = func(d string) { text.WriteString(d) }
		}
		resp, err := p.Chat(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "The answer." || !strings.Contains(resp.Reasoning, "Weighing the options") || !strings.Contains(reasoning.String(), "Weighing") {
			t.Fatalf("streaming %v: text %q reasoning %q (streamed %q)", streaming, resp.Text, resp.Reasoning, reasoning.String())
		}
		if streaming && text.String() != "The answer." {
			t.Fatalf("the streamed answer holds the thoughts: %q", text.String())
		}
		body := srv.Requests()[0]
		thinking, _ := body["generationConfig"].(map[string]any)["thinkingConfig"].(map[string]any)
		if thinking["includeThoughts"] != true {
			t.Fatalf("thought summaries not asked for: %v", body["generationConfig"])
		}
	}
}

func TestThinkingLevelReachesGemini3Only(t *testing.T) {
	for model, want := range map[string]any{"gemini-3-flash-preview": "HIGH", "gemini-2.5-flash": nil} {
		srv := llmtest.NewGeminiServer(t, llmtest.Turn{Text: "ok"})
		p, err := gemini.New(context.Background(), gemini.Config{Model: model, APIKey: "k", BaseURL: srv.URL, Thinking: "high"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "q"}}}); err != nil {
			t.Fatal(err)
		}
		thinking, _ := srv.Requests()[0]["generationConfig"].(map[string]any)["thinkingConfig"].(map[string]any)
		if thinking["thinkingLevel"] != want {
			t.Errorf("%s: thinkingLevel %v, want %v", model, thinking["thinkingLevel"], want)
		}
	}
}
