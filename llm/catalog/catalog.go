// Package catalog is what agent-lsp knows of hosted models: each known
// provider's endpoint, key variable and default model, and each model's
// context window, list price, reasoning levels and whether it takes images.
// It reads crush's catalog, charm.land/catwalk's embedded copy: no network
// at run time, and updating it is a module bump, nothing hand-edited.
//
// The catalog is parsed the first time it is asked (about a megabyte of
// JSON), never at start-up: a process that needs none of it pays nothing.
// Every function is safe for concurrent use.
package catalog

import (
	"slices"
	"strings"
	"sync"

	"charm.land/catwalk/pkg/catwalk"
	"charm.land/catwalk/pkg/embedded"

	"github.com/agent-lsp/agent-lsp/llm"
)

// The providers agent-lsp speaks to on their own SDKs; every other known
// provider speaks OpenAI's wire.
const (
	OpenAI = "openai"
	Gemini = "gemini"
)

// Provider is a known provider agent-lsp can speak to.
type Provider struct {
	ID   string // the name a user gives: "openai", "gemini", "groq", …
	Name string // for people: "Groq"
	// BaseURL is where an OpenAI-compatible provider is served; "" for
	// OpenAI and Gemini, whose SDKs know.
	BaseURL string
	// KeyEnv is the environment variable of its API key ("GROQ_API_KEY").
	KeyEnv string
	// DefaultModel is the model used when none is configured (the
	// catalog's large default); SmallModel its small one.
	DefaultModel, SmallModel string
	Models                   []Model
}

// Model is one model of a provider.
type Model struct {
	ID, Name      string
	ContextWindow int
	// Price is its list price; Priced is false where the catalog has none.
	Price  llm.Price
	Priced bool
	// ReasoningLevels are the thinking levels it takes ("low", "high", …),
	// none for a model that does not reason; DefaultReasoning is its own.
	ReasoningLevels  []string
	DefaultReasoning string
	Images           bool
}

// index is the parsed catalog.
type index struct {
	providers []Provider
	byID      map[string]int // provider ID → providers index
}

// load parses the catalog once, at the first look-up.
var load = sync.OnceValue(parse)

func parse() *index {
	idx := &index{byID: map[string]int{}}
	for _, p := range embedded.GetAll() {
		if q, ok := convert(p); ok {
			idx.byID[q.ID] = len(idx.providers)
			idx.providers = append(idx.providers, q)
		}
	}
	return idx
}

// convert keeps the providers agent-lsp can reach: OpenAI, Gemini, and
// those serving OpenAI's wire at a fixed address with an API key.
func convert(p catwalk.Provider) (Provider, bool) {
	q := Provider{ID: string(p.ID), Name: p.Name, DefaultModel: p.DefaultLargeModelID, SmallModel: p.DefaultSmallModelID}
	key, isVar := strings.CutPrefix(p.APIKey, "$")
	switch {
	case q.ID == OpenAI && p.Type == catwalk.TypeOpenAI, q.ID == Gemini && p.Type == catwalk.TypeGoogle:
	case p.Type != catwalk.TypeOpenAI && p.Type != catwalk.TypeOpenAICompat && p.Type != catwalk.TypeOpenRouter:
		return q, false
	case !isVar || key == "" || !strings.HasPrefix(p.APIEndpoint, "https://"):
		return q, false // no key to read (GitHub Copilot signs in), or no fixed address
	default:
		q.BaseURL = p.APIEndpoint
	}
	q.KeyEnv = key
	for _, m := range p.Models {
		q.Models = append(q.Models, convertModel(m))
	}
	return q, true
}

func convertModel(m catwalk.Model) Model {
	out := Model{ID: m.ID, Name: m.Name, ContextWindow: int(m.ContextWindow), Images: m.SupportsImages,
		ReasoningLevels: slices.Clone(m.ReasoningLevels), DefaultReasoning: m.DefaultReasoningEffort}
	if m.CostPer1MIn > 0 || m.CostPer1MOut > 0 {
		out.Price = llm.Price{Input: m.CostPer1MIn, Cached: cachedRate(m), Output: m.CostPer1MOut}
		out.Priced = true
	}
	return out
}

// cachedRate is the price of a cached input token. The catalog has two
// cached rates whose meaning varies by entry (a cache read, or a cache
// write dearer than input): the read is the one that is a discount on
// input, the lower if both are. Where neither is, it is the input rate, so
// the sum errs high.
func cachedRate(m catwalk.Model) float64 {
	rate := m.CostPer1MIn
	for _, r := range []float64{m.CostPer1MInCached, m.CostPer1MOutCached} {
		if r > 0 && r < rate {
			rate = r
		}
	}
	return rate
}

// Providers lists the known providers in the catalog's order (the main
// ones first).
func Providers() []Provider { return slices.Clone(load().providers) }

// Find is the known provider called id.
func Find(id string) (Provider, bool) {
	idx := load()
	i, ok := idx.byID[id]
	if !ok {
		return Provider{}, false
	}
	return idx.providers[i], true
}

// At is the known provider served at baseURL (a trailing slash aside), so
// that a user who set a provider's address gets its prices.
func At(baseURL string) (Provider, bool) {
	want := strings.TrimSuffix(baseURL, "/")
	if want == "" {
		return Provider{}, false
	}
	for _, p := range load().providers {
		if p.BaseURL != "" && strings.TrimSuffix(p.BaseURL, "/") == want {
			return p, true
		}
	}
	return Provider{}, false
}

// Model is p's model called id, or the model id is a dated snapshot of
// ("gpt-4.1-mini-2025-04-14": the name, "-" and a digit), the longest
// such name; "gpt-4o-mini" is not gpt-4o.
func (p Provider) Model(id string) (Model, bool) {
	best := -1
	for i, m := range p.Models {
		if m.ID == id {
			return m, true
		}
		rest, ok := strings.CutPrefix(id, m.ID+"-")
		if ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' && (best < 0 || len(m.ID) > len(p.Models[best].ID)) {
			best = i
		}
	}
	if best < 0 {
		return Model{}, false
	}
	return p.Models[best], true
}

// AnyModel is the model called id at the first provider that knows it, for
// what a model is wherever it is served (its window, whether it takes
// images), not what it costs there.
func AnyModel(id string) (Model, bool) {
	for _, p := range load().providers {
		if m, ok := p.Model(id); ok {
			return m, true
		}
	}
	return Model{}, false
}
