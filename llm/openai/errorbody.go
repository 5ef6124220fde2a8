package openai

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3/option"
)

// maxErrorBody caps what is read of an error response.
const maxErrorBody = 64 << 10

// errorBodies is a middleware that gives the SDK every error response in
// OpenAI's shape, {"error": {"message", "code", …}}. The SDK reads no
// other: with a compatible server's own shape the provider's words were
// lost, and with some (a string for "error") even the status (the decoding
// error came back instead, a transient failure retried).
func errorBodies(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res.StatusCode < 400 {
		return res, err
	}
	body, readErr := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	res.Body.Close()
	if readErr != nil {
		body = nil
	}
	res.Body = io.NopCloser(bytes.NewReader(openAIErrorBody(body)))
	res.ContentLength = -1
	return res, nil
}

// openAIErrorBody is body in OpenAI's error shape, from the shapes
// compatible servers answer with:
//
//	{"error": {"message": …}}                  OpenAI, llama.cpp, Ollama's /v1, OpenRouter (as is)
//	{"error": "…", "error_type": …}            Text Generation Inference, Hugging Face
//	[{"error": {"code", "message", "status"}}] Gemini's OpenAI compatibility
//	{"object": "error", "message": …}          vLLM before it nested the error
//	{"detail": …}                              FastAPI servers
//	text                                       proxies (an HTML page keeps the status's words)
func openAIErrorBody(body []byte) []byte {
	trimmed := bytes.TrimSpace(body)
	var v any
	if json.Unmarshal(trimmed, &v) != nil {
		return wrapMessage(plainReason(string(trimmed)))
	}
	if list, ok := v.([]any); ok && len(list) > 0 {
		v = list[0]
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return wrapMessage("")
	}
	switch e := obj["error"].(type) {
	case map[string]any:
		out, _ := json.Marshal(map[string]any{"error": e})
		return out
	case string:
		return wrapMessage(e)
	}
	for _, key := range []string{"message", "detail"} {
		switch m := obj[key].(type) {
		case string:
			return wrapMessage(m)
		case nil:
		default:
			raw, _ := json.Marshal(m)
			return wrapMessage(string(raw))
		}
	}
	return wrapMessage("")
}

func wrapMessage(msg string) []byte {
	out, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg}})
	return out
}

// plainReason is a text body's words, or "" for an HTML page (the
// status's words say as much).
func plainReason(text string) string {
	if strings.HasPrefix(text, "<") {
		return ""
	}
	return capReason(text)
}
