package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/catalog"
)

// ErrSignIn is what every error that a sign-in fixes matches (errors.Is):
// no model configured or found, no key for the provider. ACP answers
// these with auth_required, so the editor offers agent-lsp setup.
var ErrSignIn = errors.New("no usable model: sign in")

// signIn is an error that a sign-in fixes, in its own words.
type signIn string

func (e signIn) Error() string                 { return string(e) }
func (signIn) Is(target error) bool            { return target == ErrSignIn }
func signInf(format string, args ...any) error { return signIn(fmt.Sprintf(format, args...)) }

// SignInError is text that says what is missing and that a sign-in fixes
// (it matches ErrSignIn).
func SignInError(text string) error { return signIn(text) }

// setupHint ends what a missing model or key says.
const setupHint = ", or run `agent-lsp setup`"

// validateModel says what is missing for s's model to be reached.
func (s Settings) validateModel() error {
	switch s.Provider {
	case ProviderOpenAI:
		if s.Model == "" {
			return signInf("no model configured: set AGENT_LSP_MODEL (e.g. gpt-4o-mini, or the model name your local server serves)%s", setupHint)
		}
		if s.OpenAIKey == "" && s.BaseURL == "" {
			return signInf("no OpenAI API key: set OPENAI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server (vLLM, Ollama, llama.cpp)%s", setupHint)
		}
	case ProviderGemini:
		if s.Model == "" {
			return signInf("no model configured: set AGENT_LSP_MODEL (e.g. gemini-2.5-flash)%s", setupHint)
		}
		if s.GeminiKey == "" {
			return signInf("no Gemini API key: set GEMINI_API_KEY%s", setupHint)
		}
	default:
		p, ok := KnownProvider(s.Provider)
		if !ok {
			return fmt.Errorf("unknown provider %q: set AGENT_LSP_PROVIDER to openai, gemini or a provider `agent-lsp providers` lists", s.Provider)
		}
		if s.Model == "" {
			return signInf("no model configured: set AGENT_LSP_MODEL (e.g. %s)%s", p.DefaultModel, setupHint)
		}
		if s.KeyFor(s.Provider) == "" {
			return signInf("no %s API key: set %s%s", p.Name, p.KeyEnv, setupHint)
		}
	}
	return nil
}

// KnownProvider is the provider called name: OpenAI, Gemini or another
// the catalog knows (read at this first need, not before).
func KnownProvider(name string) (catalog.Provider, bool) { return catalog.Find(name) }

// KeyFor is the API key of provider: its environment variable's, else the
// user's file's ([keys]).
func (s Settings) KeyFor(provider string) string {
	switch provider {
	case ProviderOpenAI:
		return s.OpenAIKey
	case ProviderGemini:
		return s.GeminiKey
	}
	if p, ok := catalog.Find(provider); ok && s.env != nil {
		if k := s.env(p.KeyEnv); k != "" {
			return k
		}
	}
	return s.Keys[provider]
}

// Wire is how s's model is reached: on which SDK (ProviderOpenAI or
// ProviderGemini), at which address ("" for the SDK's own), with which key.
type Wire struct{ SDK, BaseURL, Key string }

// Wire says how s's model is reached; a provider the catalog knows is
// served on OpenAI's wire at its address, unless base_url names another.
func (s Settings) Wire() (Wire, error) {
	switch s.Provider {
	case ProviderOpenAI, ProviderGemini:
		return Wire{SDK: s.Provider, BaseURL: s.BaseURL, Key: s.KeyFor(s.Provider)}, nil
	}
	p, ok := KnownProvider(s.Provider)
	if !ok {
		return Wire{}, fmt.Errorf("unknown provider %q: known providers are %s, and those `agent-lsp providers` lists", s.Provider, strings.Join(Providers(), ", "))
	}
	base := s.BaseURL
	if base == "" {
		base = p.BaseURL
	}
	return Wire{SDK: ProviderOpenAI, BaseURL: base, Key: s.KeyFor(s.Provider)}, nil
}

// host is the known provider serving s's model, whose list prices apply:
// s's provider at its own address, or the one at s's base URL (OpenAI's
// wire pointed at Groq). A server the catalog does not know has none.
func (s Settings) host() (catalog.Provider, bool) {
	if s.Provider == ProviderOpenAI || s.Provider == ProviderGemini {
		if s.BaseURL == "" {
			return catalog.Find(s.Provider)
		}
		return catalog.At(s.BaseURL)
	}
	p, ok := catalog.Find(s.Provider)
	if ok && s.BaseURL != "" && strings.TrimSuffix(s.BaseURL, "/") != strings.TrimSuffix(p.BaseURL, "/") {
		return p, false
	}
	return p, ok
}

// CatalogModel is what the catalog says of s's model: its host's entry,
// else (a model served elsewhere: a proxy, a router) the entry of the same
// model at any known provider, for what the model is (window, images,
// reasoning levels) but not what it costs. False: the catalog does not know it.
func (s Settings) CatalogModel() (catalog.Model, bool) {
	if s.Model == "" {
		return catalog.Model{}, false
	}
	if h, ok := s.host(); ok {
		if m, ok := h.Model(s.Model); ok {
			return m, true
		}
	}
	m, ok := catalog.AnyModel(s.Model)
	m.Priced, m.Price = false, llm.Price{}
	return m, ok
}

// ModelPrice is what the model charges: its [prices] entry where there is
// one, else its host's list price in the catalog; false where not known.
func (s Settings) ModelPrice() (llm.Price, bool) {
	if p := s.Prices[s.Model]; len(p) == 3 {
		return llm.Price{Input: p[0], Cached: p[1], Output: p[2]}, true
	}
	if m, ok := s.CatalogModel(); ok && m.Priced {
		return m.Price, true
	}
	return llm.Price{}, false
}

// Window is the model's context window in tokens: context_window where
// set, else the catalog's; 0 where neither says (the agent then guesses
// from the name, agent.DefaultContextWindow).
func (s Settings) Window() int {
	if s.ContextWindow > 0 {
		return s.ContextWindow
	}
	if m, ok := s.CatalogModel(); ok {
		return m.ContextWindow
	}
	return 0
}

// SeesImages says whether the model takes images: the catalog's word,
// else a guess from the names of the vision models local servers serve.
func (s Settings) SeesImages() bool {
	if m, ok := s.CatalogModel(); ok {
		return m.Images
	}
	return llm.SeesImages(s.Model)
}

// DefaultModel is the model used for provider when none is configured:
// the catalog's default; "" for a provider it does not know.
func DefaultModel(provider string) string {
	p, _ := catalog.Find(provider)
	return p.DefaultModel
}

// ModelFacts are what agent-lsp knows of a model, for `agent-lsp models`,
// ACP's model picker and agent.status.
type ModelFacts struct {
	// ContextWindow in tokens; 0 where not known.
	ContextWindow int `json:"contextWindow,omitempty"`
	// Price in US dollars per million tokens; nil where not known.
	Price  *llm.Price `json:"price,omitempty"`
	Images bool       `json:"images"`
	// Known says the catalog knows the model (else the window and images
	// are guesses or settings, the price [prices]'s or none).
	Known bool `json:"known"`
}

// Facts are what is known of s's model.
func (s Settings) Facts() ModelFacts {
	_, known := s.CatalogModel()
	f := ModelFacts{ContextWindow: s.Window(), Images: s.SeesImages(), Known: known}
	if p, ok := s.ModelPrice(); ok {
		f.Price = &p
	}
	return f
}

// String is the facts in a few words: "1.05M context, $0.40 in, $0.10
// cached, $1.60 out per 1M tokens, takes images".
func (f ModelFacts) String() string {
	parts := []string{"context unknown"}
	if f.ContextWindow > 0 {
		parts[0] = tokens(f.ContextWindow) + " context"
	}
	if f.Price != nil {
		parts = append(parts, fmt.Sprintf("$%s in, $%s cached, $%s out per 1M tokens", dollars(f.Price.Input), dollars(f.Price.Cached), dollars(f.Price.Output)))
	} else {
		parts = append(parts, "price unknown")
	}
	if f.Images {
		parts = append(parts, "takes images")
	} else {
		parts = append(parts, "text only")
	}
	return strings.Join(parts, ", ")
}

// tokens writes a count as people read it: 128k, 1.05M.
func tokens(n int) string {
	switch {
	case n >= 1_000_000:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", float64(n)/1e6), "0"), ".") + "M"
	case n >= 1000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// dollars writes a price without trailing zeros past the cents.
func dollars(d float64) string {
	s := fmt.Sprintf("%.4f", d)
	s = strings.TrimRight(s, "0")
	if i := strings.IndexByte(s, '.'); len(s)-i < 3 {
		s += strings.Repeat("0", 3-(len(s)-i))
	}
	return s
}
