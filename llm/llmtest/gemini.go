package llmtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// NewGeminiServer speaks the Gemini API wire format at
// /v1beta/models/{model}:generateContent and :streamGenerateContent (SSE).
// Use URL as the base URL.
func NewGeminiServer(t testing.TB, turns ...Turn) *Server {
	return newGemini(t, turns, nil, nil)
}

// SystemText returns the system text of a request body on either wire:
// Gemini's system instruction, or the system message opening OpenAI's
// messages.
func SystemText(body map[string]any) string {
	if msgs, ok := body["messages"].([]any); ok {
		if len(msgs) == 0 {
			return ""
		}
		first, _ := msgs[0].(map[string]any)
		if s, _ := first["content"].(string); first["role"] == "system" {
			return s
		}
		return ""
	}
	sys, _ := body["systemInstruction"].(map[string]any)
	var b strings.Builder
	for _, p := range asList(sys["parts"]) {
		s, _ := p["text"].(string)
		b.WriteString(s)
	}
	return b.String()
}

// NewGemini3Server is NewGeminiServer as Gemini 3 models behave: each step's
// first function call (and a final text) carries a thoughtSignature, and a
// request whose current-turn function calls don't bring theirs back
// unchanged (or the documented skip_thought_signature_validator) is refused
// with 400 INVALID_ARGUMENT, as the API does.
func NewGemini3Server(t testing.TB, turns ...Turn) *Server {
	return newGemini(t, turns, nil, &signatures{issued: map[string]string{}})
}

// NewGemini3Responder is NewGemini3Server with each turn chosen by respond
// from the decoded request body.
func NewGemini3Responder(t testing.TB, respond func(body map[string]any) Turn) *Server {
	return newGemini(t, nil, respond, &signatures{issued: map[string]string{}})
}

// signatures are the thought signatures a Gemini 3 fake issued, to the
// function each was issued with.
type signatures struct {
	mu     sync.Mutex // guards issued and n
	issued map[string]string
	n      int
}

func (s *signatures) issue(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	sig := base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("opaque-signature-%d-%s", s.n, name)))
	s.issued[sig] = name
	return sig
}

// check returns why the API would refuse body, or "".
func (s *signatures) check(body map[string]any) string {
	contents, _ := body["contents"].([]any)
	start := 0
	for i, c := range contents {
		content, _ := c.(map[string]any)
		if content["role"] != "user" {
			continue
		}
		for _, p := range asList(content["parts"]) {
			if _, ok := p["text"]; ok {
				start = i + 1
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := start; i < len(contents); i++ {
		content, _ := contents[i].(map[string]any)
		if content["role"] != "model" {
			continue
		}
		for _, p := range asList(content["parts"]) {
			fc, ok := p["functionCall"].(map[string]any)
			if !ok {
				continue
			}
			sig, _ := p["thoughtSignature"].(string)
			if sig != base64.StdEncoding.EncodeToString([]byte("skip_thought_signature_validator")) && s.issued[sig] != fc["name"] {
				return fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `%v` , position %d.", fc["name"], i+1)
			}
			break // only a step's first call carries one
		}
	}
	return ""
}

func asList(v any) []map[string]any {
	var out []map[string]any
	list, _ := v.([]any)
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func newGemini(t testing.TB, turns []Turn, respond func(map[string]any) Turn, sigs *signatures) *Server {
	return newServer(t, turns, respond, func(w http.ResponseWriter, r *http.Request, body map[string]any, turn Turn) {
		if sigs != nil {
			if why := sigs.check(body); why != "" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": 400, "message": why, "status": "INVALID_ARGUMENT"}})
				return
			}
		}
		finish := "STOP"
		if turn.Finish != "" {
			finish = turn.Finish
		}
		parts := geminiParts(t, turn, sigs)
		response := func(parts []any, finish string) map[string]any {
			cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
			if finish != "" {
				cand["finishReason"] = finish
			}
			// A plausible prompt size (four bytes a token), as the OpenAI fake reports.
			prompt := len(toJSON(body["contents"])) / 4
			usage := map[string]any{"promptTokenCount": prompt, "candidatesTokenCount": 5, "totalTokenCount": prompt + 5}
			if turn.Reasoning != "" {
				usage["thoughtsTokenCount"], usage["cachedContentTokenCount"] = 7, 4
			}
			return map[string]any{"candidates": []any{cand}, "usageMetadata": usage}
		}
		switch {
		case strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
			var events []any
			if turn.Reasoning != "" {
				events = append(events, response(parts[:1], ""))
				parts = parts[1:]
			}
			pieces := splitText(turn.Text)
			for i, p := range pieces {
				f := ""
				if i == len(pieces)-1 && len(turn.Calls) == 0 && sigs == nil {
					f = finish
				}
				events = append(events, response([]any{map[string]any{"text": p}}, f))
			}
			if sigs != nil && turn.Text != "" && len(turn.Calls) == 0 {
				// Gemini streams a text's signature in a last, empty part.
				events = append(events, response([]any{map[string]any{"text": "", "thoughtSignature": parts[0].(map[string]any)["thoughtSignature"]}}, finish))
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

// geminiParts are turn's parts as Gemini sends them: the reasoning, the
// text, the calls, with thought signatures where sigs is kept.
func geminiParts(t testing.TB, turn Turn, sigs *signatures) []any {
	var parts []any
	if turn.Reasoning != "" {
		parts = append(parts, map[string]any{"text": turn.Reasoning, "thought": true})
	}
	if turn.Text != "" {
		text := map[string]any{"text": turn.Text}
		if sigs != nil && len(turn.Calls) == 0 {
			text["thoughtSignature"] = sigs.issue("")
		}
		parts = append(parts, text)
	}
	for i, c := range turn.Calls {
		var args any
		if err := json.Unmarshal([]byte(c.Args), &args); err != nil {
			t.Errorf("llmtest: Gemini sends arguments as an object; %q is not JSON", c.Args)
		}
		fc := map[string]any{"name": c.Name, "args": args}
		if c.ID != "" {
			fc["id"] = c.ID
		}
		part := map[string]any{"functionCall": fc}
		if sigs != nil && i == 0 {
			part["thoughtSignature"] = sigs.issue(c.Name)
		}
		parts = append(parts, part)
	}
	return parts
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
