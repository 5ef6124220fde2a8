package catalog

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/llm"
)

// The catalog's prices reach the meter as [input, cached input, output]:
// OpenAI's gpt-4.1-mini lists its cache read under the catalog's second
// cached rate, gpt-5.6-sol lists a cache write above its input rate beside
// its read, and a dated snapshot is priced as its model.
func TestPricesOfHostedModels(t *testing.T) {
	openai, ok := Find(OpenAI)
	if !ok {
		t.Fatal("openai is not in the catalog")
	}
	for _, tc := range []struct {
		model string
		want  llm.Price
	}{
		{"gpt-4.1-mini", llm.Price{Input: 0.40, Cached: 0.10, Output: 1.60}},
		{"gpt-4.1-mini-2025-04-14", llm.Price{Input: 0.40, Cached: 0.10, Output: 1.60}},
		{"gpt-5.6-sol", llm.Price{Input: 5, Cached: 0.5, Output: 30}},
	} {
		m, ok := openai.Model(tc.model)
		if !ok || !m.Priced {
			t.Errorf("%s: not priced (%v)", tc.model, ok)
			continue
		}
		if !near(m.Price, tc.want) {
			t.Errorf("%s: price %+v, want %+v", tc.model, m.Price, tc.want)
		}
	}
}

func near(a, b llm.Price) bool {
	d := func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 }
	return d(a.Input, b.Input) && d(a.Cached, b.Cached) && d(a.Output, b.Output)
}

// A name that merely starts with a known one is another model: only a
// dated snapshot takes its model's entry.
func TestOnlyASnapshotTakesItsModelsEntry(t *testing.T) {
	openai, _ := Find(OpenAI)
	for _, id := range []string{"gpt-4.1-mini-custom", "gpt-4.1-", "o3-pro-like", "my-gpt-4.1"} {
		if m, ok := openai.Model(id); ok {
			t.Errorf("%s: taken as %s", id, m.ID)
		}
	}
}

// What a model is comes from the catalog: its window, whether it takes
// images, its reasoning levels.
func TestWhatAModelIs(t *testing.T) {
	m, ok := AnyModel("gpt-4o-mini")
	if !ok || m.ContextWindow != 128_000 || !m.Images {
		t.Errorf("gpt-4o-mini: %+v (%v), want a 128k window that takes images", m, ok)
	}
	m, ok = AnyModel("o3-mini")
	if !ok || m.Images || len(m.ReasoningLevels) == 0 {
		t.Errorf("o3-mini: %+v (%v), want no images and reasoning levels", m, ok)
	}
	if m, ok := AnyModel("qwen2.5-coder:7b"); ok {
		t.Errorf("a local model is known: %+v", m)
	}
}

// Known providers are names a user can give: each speaks OpenAI's wire at
// a fixed address with a key from its own variable, or is OpenAI or
// Gemini; providers agent-lsp cannot speak to (Anthropic's wire, Bedrock,
// Copilot's sign-in) are left out.
func TestProvidersAUserCanName(t *testing.T) {
	for _, tc := range []struct{ id, env, url string }{
		{"openai", "OPENAI_API_KEY", ""},
		{"gemini", "GEMINI_API_KEY", ""},
		{"groq", "GROQ_API_KEY", "https://api.groq.com/openai/v1"},
		{"deepseek", "DEEPSEEK_API_KEY", "https://api.deepseek.com/v1"},
		{"openrouter", "OPENROUTER_API_KEY", "https://openrouter.ai/api/v1"},
		{"xai", "XAI_API_KEY", "https://api.x.ai/v1"},
	} {
		p, ok := Find(tc.id)
		if !ok || p.KeyEnv != tc.env || p.BaseURL != tc.url || p.DefaultModel == "" {
			t.Errorf("%s: %+v (%v), want key %s at %q with a default model", tc.id, p, ok, tc.env, tc.url)
		}
		if _, ok := p.Model(p.DefaultModel); !ok {
			t.Errorf("%s: its default model %s is not among its models", tc.id, p.DefaultModel)
		}
	}
	for _, id := range []string{"anthropic", "bedrock", "copilot", "vertexai", "azure"} {
		if _, ok := Find(id); ok {
			t.Errorf("%s is offered, but agent-lsp cannot speak to it", id)
		}
	}
	if p, ok := At("https://api.groq.com/openai/v1/"); !ok || p.ID != "groq" {
		t.Errorf("At(groq's address) = %+v, %v", p, ok)
	}
	if _, ok := At("http://127.0.0.1:11434/v1"); ok {
		t.Error("a local server is taken for a known provider")
	}
}

// BenchmarkFirstLookup is the catalog's parse, paid once by the first
// look-up of a process (never at start-up).
func BenchmarkFirstLookup(b *testing.B) {
	for b.Loop() {
		parse()
	}
}
