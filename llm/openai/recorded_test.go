package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/llm/openai"
)

type streamed struct{ text, reasoning strings.Builder }

func (s *streamed) request(text string) llm.Request {
	return llm.Request{
		Messages:    []llm.Message{{Role: llm.RoleUser, Text: text}},
		OnText:      func(d string) { s.text.WriteString(d) },
		OnReasoning: func(d string) { s.reasoning.WriteString(d) },
	}
}

// TestRecordedUsageIsEachCallsOwn: whichever chunk carries the usage, and
// however often, a call reports its own, once.
func TestRecordedUsageIsEachCallsOwn(t *testing.T) {
	for name, turn := range map[string]llmtest.Turn{
		"OpenAI: a usage-only last chunk":                   llmtest.OpenAIStream(),
		"Groq: on the finish chunk and the usage-only one":  llmtest.GroqR1Stream(),
		"Groq: x_groq.usage alone":                          llmtest.GroqXUsageStream(),
		"xAI: the running total on every chunk":             llmtest.XAIStream(),
		"llama.cpp: on the finish chunk":                    llmtest.LlamaCppQwen3Stream(),
		"DeepSeek: a usage-only last chunk":                 llmtest.DeepSeekReasonerStream(),
		"Ollama: a usage-only last chunk":                   llmtest.OllamaQwQOrphanStream(),
		"OpenRouter: after keep-alive comments, with costs": llmtest.OpenRouterStream(),
		"Groq, not streamed":                                llmtest.GroqR1Completion(),
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t, turn)
			var s streamed
			req := s.request("what is 2 + 2?")
			if turn.RawBody != "" {
				req.OnText = nil
			}
			resp, err := newProvider(t, srv).Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Usage.InputTokens != llmtest.RecordedInput || resp.Usage.OutputTokens != llmtest.RecordedOutput {
				t.Fatalf("usage %+v, want %d/%d", resp.Usage, llmtest.RecordedInput, llmtest.RecordedOutput)
			}
			if resp.Text != llmtest.RecordedAnswer {
				t.Fatalf("text %q", resp.Text)
			}
		})
	}
}

// TestDeepSeekCacheHits: DeepSeek names its cached input its own way.
func TestDeepSeekCacheHits(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.DeepSeekReasonerStream())
	var s streamed
	resp, err := newProvider(t, srv).Chat(context.Background(), s.request("2 + 2?"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage.CachedTokens != llmtest.RecordedCached || resp.Usage.ReasoningTokens != 20 {
		t.Fatalf("usage %+v", resp.Usage)
	}
}

// TestRecordedThoughtInContent: a thought written into the content (tags
// cut across chunks) is reasoning: streamed as reasoning, never as text,
// and not sent back in the history.
func TestRecordedThoughtInContent(t *testing.T) {
	for name, turn := range map[string]llmtest.Turn{
		"Groq R1 distill":             llmtest.GroqR1Stream(),
		"llama.cpp Qwen3":             llmtest.LlamaCppQwen3Stream(),
		"Groq R1 distill, whole":      llmtest.GroqR1Completion(),
		"OpenRouter, reasoning apart": llmtest.OpenRouterStream(),
		"DeepSeek, reasoning_content": llmtest.DeepSeekReasonerStream(),
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t, turn, llmtest.Turn{Text: "ok"})
			p := newProvider(t, srv)
			var s streamed
			req := s.request("what is 2 + 2?")
			whole := turn.RawBody != ""
			if whole {
				req.OnText = nil
			}
			resp, err := p.Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != llmtest.RecordedAnswer || resp.Reasoning != llmtest.RecordedThought {
				t.Fatalf("text %q, reasoning %q", resp.Text, resp.Reasoning)
			}
			if !whole && s.text.String() != llmtest.RecordedAnswer {
				t.Fatalf("streamed text %q", s.text.String())
			}
			if strings.TrimSpace(s.reasoning.String()) != llmtest.RecordedThought {
				t.Fatalf("streamed reasoning %q", s.reasoning.String())
			}
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Text: resp.Text}, llm.Message{Role: llm.RoleUser, Text: "and 3 + 3?"})
			if _, err := p.Chat(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			sent := string(srv.RawRequests()[1])
			if strings.Contains(sent, "think") || strings.Contains(sent, "The user asks") {
				t.Fatalf("the thought was sent back: %s", sent)
			}
		})
	}
}

// TestRecordedThoughtOpenedInPrompt: a model whose template opens the
// thought sends only its end. The first answer's thought is known only at
// that end (shown as reasoning then, kept out of the answer); from then on
// such a model's stream is read as reasoning until the tag, in later runs
// too, and an answer without one turns it back.
func TestRecordedThoughtOpenedInPrompt(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.OllamaQwQOrphanStream(), llmtest.OllamaQwQOrphanStream(),
		llmtest.OpenAIStream(), llmtest.OpenAIStream(), llmtest.OllamaQwQOrphanStream(), llmtest.DeepSeekReasonerStream())
	for i, wantStreamed := range []string{
		llmtest.RecordedThought + "\n</think>\n\n" + llmtest.RecordedAnswer, // known at the tag only
		llmtest.RecordedAnswer,
		llmtest.RecordedAnswer, // no tag: an answer after all, given at the end
		llmtest.RecordedAnswer,
		llmtest.RecordedThought + "\n</think>\n\n" + llmtest.RecordedAnswer, // learned again
		llmtest.RecordedAnswer, // the server now reports reasoning apart: the content is the answer
	} {
		// Each run builds its provider: what is learned outlives it.
		p, err := openai.New(openai.Config{Model: "qwq:32b", BaseURL: srv.URL + "/v1"})
		if err != nil {
			t.Fatal(err)
		}
		var s streamed
		resp, err := p.Chat(context.Background(), s.request("what is 2 + 2?"))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != llmtest.RecordedAnswer || s.text.String() != wantStreamed {
			t.Fatalf("call %d: text %q, streamed %q", i+1, resp.Text, s.text.String())
		}
		if i != 2 && i != 3 && (resp.Reasoning != llmtest.RecordedThought || strings.TrimSpace(s.reasoning.String()) != llmtest.RecordedThought) {
			t.Fatalf("call %d: reasoning %q, streamed %q", i+1, resp.Reasoning, s.reasoning.String())
		}
		if i == 3 && s.reasoning.String() != "" {
			t.Fatalf("call 4 still read as a thought: %q", s.reasoning.String())
		}
	}
}

// TestRecordedErrorsInTheProvidersWords: the user reads the provider's own
// words whatever shape its error takes, behind a router the upstream
// provider and its reason too, and the kind follows them.
func TestRecordedErrorsInTheProvidersWords(t *testing.T) {
	for _, c := range []struct {
		name   string
		turn   llmtest.Turn
		stream bool
		kind   error
		want   []string
	}{
		{"OpenRouter 429", llmtest.OpenRouterRateLimited(), false, llm.ErrRateLimited,
			[]string{"Provider returned error", "Chutes", "deepseek/deepseek-r1:free is temporarily rate-limited upstream"}},
		{"OpenRouter 400 with the upstream's JSON", llmtest.OpenRouterUpstreamJSONError(), false, llm.ErrContextTooLong,
			[]string{"DeepSeek: This model's maximum context length is 65536 tokens"}},
		{"TGI: a string", llmtest.TGIValidationError(), false, llm.ErrBadRequest, []string{"HTTP 422", "Input validation error"}},
		{"Gemini's compatibility: a list", llmtest.GeminiCompatRateLimited(), false, llm.ErrRateLimited, []string{"Resource has been exhausted"}},
		{"vLLM: not nested", llmtest.VLLMContextTooLong(), false, llm.ErrContextTooLong, []string{"maximum context length is 4096"}},
		{"FastAPI: detail", llmtest.FastAPIDetail(), false, llm.ErrUnavailable, []string{"Model is loading"}},
		{"a proxy's text", llmtest.ProxyText(), true, llm.ErrUnavailable, []string{"HTTP 503", "upstream connect error"}},
		{"OpenRouter error in a 200 body", llmtest.OpenRouterErrorIn200(), false, llm.ErrUnavailable,
			[]string{"Provider returned error", "Novita: no healthy upstream"}},
		{"OpenRouter error event in a 200 stream", llmtest.OpenRouterStreamError(), true, llm.ErrUnavailable,
			[]string{"Provider returned error", "Chutes: upstream connect error"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t, c.turn)
			var s streamed
			req := s.request("hi")
			if !c.stream {
				req.OnText = nil
			}
			_, err := newProvider(t, srv).Chat(context.Background(), req)
			if !errors.Is(err, c.kind) {
				t.Fatalf("err = %v, want %v", err, c.kind)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("%q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "{") {
				t.Fatalf("raw JSON in the message: %q", err)
			}
		})
	}
}
