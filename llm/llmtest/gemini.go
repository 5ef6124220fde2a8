package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// NewGeminiServer speaks the Gemini API wire format at
// /v1beta/models/{model}:generateContent and :streamGenerateContent (SSE).
// Use URL as the base URL.
func NewGeminiServer(t testing.TB, turns ...Turn) *Server {
	return newServer(t, turns, nil, func(w http.ResponseWriter, r *http.Request, body map[string]any, turn Turn) {
		finish := "STOP"
		if turn.Finish != "" {
			finish = turn.Finish
		}
		var parts []any
		if turn.Text != "" {
			parts = append(parts, map[string]any{"text": turn.Text})
		}
		for _, c := range turn.Calls {
			var args any
			if err := json.Unmarshal([]byte(c.Args), &args); err != nil {
				t.Errorf("llmtest: Gemini sends arguments as an object; %q is not JSON", c.Args)
			}
			fc := map[string]any{"name": c.Name, "args": args}
			if c.ID != "" {
				fc["id"] = c.ID
			}
			parts = append(parts, map[string]any{"functionCall": fc})
		}
		response := func(parts []any, finish string) map[string]any {
			cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
			if finish != "" {
				cand["finishReason"] = finish
			}
			return map[string]any{"candidates": []any{cand},
				"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}
		}
		switch {
		case strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
			var events []any
			pieces := splitText(turn.Text)
			for i, p := range pieces {
				f := ""
				if i == len(pieces)-1 && len(turn.Calls) == 0 {
					f = finish
				}
				events = append(events, response([]any{map[string]any{"text": p}}, f))
			}
			if len(turn.Calls) > 0 || len(pieces) == 0 {
				events = append(events, response(parts[min(len(parts), boolInt(turn.Text != "")):], finish))
			}
			writeSSE(w, events, false)
		case strings.HasSuffix(r.URL.Path, ":generateContent"):
			writeJSON(w, response(parts, finish))
		default:
			t.Errorf("llmtest: unexpected path %s", r.URL.Path)
			http.NotFound(w, r)
		}
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
