package llmtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// NewOpenAIServer speaks the Chat Completions wire format at /v1/chat/completions,
// non-streaming and streaming (SSE), and the completions format at
// /v1/completions (fill-in-the-middle). Use URL+"/v1" as the base URL.
func NewOpenAIServer(t testing.TB, turns ...Turn) *Server {
	return newOpenAIServer(t, turns, nil)
}

// NewOpenAIResponder is NewOpenAIServer with each turn chosen by respond from
// the decoded request body.
func NewOpenAIResponder(t testing.TB, respond func(body map[string]any) Turn) *Server {
	return newOpenAIServer(t, nil, respond)
}

func newOpenAIServer(t testing.TB, turns []Turn, respond func(map[string]any) Turn) *Server {
	return newServer(t, turns, respond, func(w http.ResponseWriter, r *http.Request, body map[string]any, turn Turn) {
		model, _ := body["model"].(string)
		if r.URL.Path == "/v1/completions" {
			// The legacy completions endpoint, which coder models serve for
			// fill-in-the-middle.
			writeJSON(w, map[string]any{
				"id": "cmpl-test", "object": "text_completion", "created": 1, "model": model,
				"choices": []any{map[string]any{"index": 0, "text": turn.Text, "finish_reason": cmp.Or(turn.Finish, "stop"), "logprobs": nil}},
				"usage":   map[string]any{"prompt_tokens": len(toJSON(body["prompt"])) / 4, "completion_tokens": 5, "total_tokens": 5},
			})
			return
		}
		if r.URL.Path != "/v1/chat/completions" {
			t.Errorf("llmtest: unexpected path %s", r.URL.Path)
		}
		finish := "stop"
		if len(turn.Calls) > 0 {
			finish = "tool_calls"
		}
		if turn.Finish != "" {
			finish = turn.Finish
		}
		// Report a plausible prompt size (four bytes a token) so token budgets
		// calibrated on usage behave as with a real server.
		promptTokens := len(toJSON(body["messages"])) / 4
		if stream, _ := body["stream"].(bool); stream {
			writeSSE(w, openAIChunks(model, turn, finish, promptTokens), true)
			return
		}
		msg := map[string]any{"role": "assistant", "content": turn.Text}
		if turn.Reasoning != "" {
			msg["reasoning_content"] = turn.Reasoning
		}
		if len(turn.Calls) > 0 {
			var calls []any
			for i, c := range turn.Calls {
				call := map[string]any{"type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}}
				if !turn.NoCallIDs {
					call["id"] = callID(c, i)
				}
				calls = append(calls, call)
			}
			msg["tool_calls"] = calls
		}
		writeJSON(w, map[string]any{
			"id": "chatcmpl-test", "object": "chat.completion", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   openAIUsage(turn, promptTokens),
		})
	})
}

func callID(c Call, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("call_%d", i+1)
}

// openAIChunks splits a turn into stream chunks the way real servers do: text
// in pieces, each tool call's arguments in two deltas, and finish_reason on the
// chunk that carries the last argument delta (the openai-go accumulator trap).
func openAIChunks(model string, turn Turn, finish string, promptTokens int) []any {
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	chunks := []any{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	for _, piece := range splitText(turn.Reasoning) {
		chunks = append(chunks, chunk(map[string]any{"reasoning_content": piece}, nil))
	}
	for _, piece := range splitText(turn.Text) {
		chunks = append(chunks, chunk(map[string]any{"content": piece}, nil))
	}
	for i, c := range turn.Calls {
		half := len(c.Args) / 2
		first := map[string]any{"index": i, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args[:half]}}
		if !turn.NoCallIDs {
			first["id"] = callID(c, i)
		}
		chunks = append(chunks, chunk(map[string]any{"tool_calls": []any{first}}, nil))
		var last any
		if i == len(turn.Calls)-1 {
			last = finish
		}
		chunks = append(chunks, chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "function": map[string]any{"arguments": c.Args[half:]}}}}, last))
	}
	if len(turn.Calls) == 0 {
		chunks = append(chunks, chunk(map[string]any{}, finish))
	}
	chunks = append(chunks, map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1,
		"model": model, "choices": []any{}, "usage": openAIUsage(turn, promptTokens)})
	return chunks
}

// openAIUsage reports the prompt's size, five output tokens, and for a turn
// with reasoning some reasoning and cached tokens.
func openAIUsage(turn Turn, promptTokens int) map[string]any {
	u := map[string]any{"prompt_tokens": promptTokens, "completion_tokens": 5, "total_tokens": promptTokens + 5}
	if turn.Reasoning != "" {
		u["completion_tokens_details"] = map[string]any{"reasoning_tokens": 3}
		u["prompt_tokens_details"] = map[string]any{"cached_tokens": 2}
	}
	return u
}

// splitText cuts text into word-sized pieces, as a streaming server sends them.
func splitText(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text[1:], ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// LastUserText returns the text of the last user message of an OpenAI request body.
func LastUserText(body map[string]any) string {
	msgs, _ := body["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] == "user" {
			s, _ := m["content"].(string)
			return s
		}
	}
	return ""
}

// CurrentTask is the text of the last user message of an OpenAI request
// body (the run's task, where a session keeps the runs before) and how
// many of role's messages came after it: a script's step.
func CurrentTask(body map[string]any, role string) (task string, after int) {
	msgs, _ := body["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		switch m["role"] {
		case role:
			after++
		case "user":
			s, _ := m["content"].(string)
			return s, after
		}
	}
	return "", after
}

// FirstUserText returns the text of the first user message.
func FirstUserText(body map[string]any) string {
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		m, _ := m.(map[string]any)
		if m["role"] == "user" {
			s, _ := m["content"].(string)
			return s
		}
	}
	return ""
}

// CountRole counts the messages of a role in an OpenAI request body.
func CountRole(body map[string]any, role string) int {
	msgs, _ := body["messages"].([]any)
	n := 0
	for _, m := range msgs {
		if m, _ := m.(map[string]any); m["role"] == role {
			n++
		}
	}
	return n
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
