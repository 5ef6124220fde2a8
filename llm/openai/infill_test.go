package openai_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/llm/openai"
)

// TestInfillOnTheWire: /v1/completions with the suffix parameter (Ollama,
// llama.cpp), or the model's FIM tokens in the prompt (vLLM, which takes no
// suffix), chosen by the model's name or configured.
func TestInfillOnTheWire(t *testing.T) {
	for _, tc := range []struct {
		model, fim, wantPrompt, wantSuffix string
	}{
		{"llama3-8b", "", "func add(a, b int) int {\n\t", "\n}\n"},
		{"Qwen2.5-Coder-1.5B", "", "<|fim_prefix|>func add(a, b int) int {\n\t<|fim_suffix|>\n}\n<|fim_middle|>", ""},
		{"qwen2.5-coder:1.5b", "suffix", "func add(a, b int) int {\n\t", "\n}\n"},
		{"my-model", "starcoder", "<fim_prefix>func add(a, b int) int {\n\t<fim_suffix>\n}\n<fim_middle>", ""},
		{"codestral-latest", "", "[SUFFIX]\n}\n[PREFIX]func add(a, b int) int {\n\t", ""},
	} {
		srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "return a + b"})
		p, err := openai.New(openai.Config{Model: tc.model, BaseURL: srv.URL + "/v1", FIM: tc.fim})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Infill(context.Background(), llm.InfillRequest{Prefix: "func add(a, b int) int {\n\t", Suffix: "\n}\n", MaxTokens: 64, Stop: []string{"\n\n"}})
		if err != nil || got != "return a + b" {
			t.Fatalf("%s: %q %v", tc.model, got, err)
		}
		body := srv.Requests()[0]
		suffix, _ := body["suffix"].(string)
		if body["prompt"] != tc.wantPrompt || suffix != tc.wantSuffix || body["model"] != tc.model || body["max_tokens"] != float64(64) {
			t.Fatalf("%s/%s: request %v", tc.model, tc.fim, body)
		}
	}
}

// TestInfillErrorsAreTyped: a server without /v1/completions answers 404,
// which is the provider's error like any other.
func TestInfillErrorsAreTyped(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Status: 404, Body: `{"error":{"message":"not found"}}`})
	p, _ := openai.New(openai.Config{Model: "m", BaseURL: srv.URL + "/v1"})
	_, err := p.Infill(context.Background(), llm.InfillRequest{Prefix: "x"})
	var e *llm.Error
	if !errors.As(err, &e) || e.Status != 404 {
		t.Fatalf("err %v", err)
	}
}

// TestInfillNeverInsertsAThought: a reasoning model's thought, whether
// it fills in the middle or answers a chat prompt, never reaches the
// buffer; a thought the token limit cut is no completion at all.
func TestInfillNeverInsertsAThought(t *testing.T) {
	for _, c := range []struct {
		name, model, answer, want string
		chat                      bool
	}{
		{"fill in the middle", "qwen3:8b", "<think>\nThey want the sum.\n</think>\n\nreturn a + b", "return a + b", false},
		{"cut off while thinking", "qwen3:8b", "<think>\nThey want", "", false},
		{"chat prompt", "deepseek-r1:8b", "<think>\nThey want the sum.\n</think>\n\n```go\nreturn a + b\n```", "return a + b", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: c.answer})
			p, err := openai.New(openai.Config{Model: c.model, BaseURL: srv.URL + "/v1", FIM: "suffix"})
			if err != nil {
				t.Fatal(err)
			}
			var in llm.Infiller = p
			if c.chat {
				in = llm.ChatInfiller(p)
			}
			got, err := in.Infill(context.Background(), llm.InfillRequest{Prefix: "func add(a, b int) int {\n\t", Suffix: "\n}\n"})
			if err != nil || got != c.want {
				t.Fatalf("%q %v", got, err)
			}
		})
	}
}
