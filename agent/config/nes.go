package config

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// NES configures next edit suggestions: the edit the user will likely make
// next, anywhere near the cursor, predicted from their recent edits
// (textDocument/copilotInlineEdit), on its own model. Off while Model is
// empty.
type NES struct {
	Model string `toml:"model" json:"model,omitempty"`
	// Provider and BaseURL default to the agent's when empty.
	Provider string `toml:"provider" json:"provider,omitempty"`
	BaseURL  string `toml:"base_url" json:"baseUrl,omitempty"`
	// Format is how the model is asked: "zeta" (Zed's Zeta prompt, for a
	// model trained on it), "chat" (a chat model returns the rewritten
	// region in a fenced block), or "auto" (default: zeta for a model whose
	// name says zeta, else chat).
	Format string `toml:"format" json:"format,omitempty"`
	// Languages are the language ids it is on for; empty: all.
	Languages  []string `toml:"languages" json:"languages,omitempty"`
	DebounceMS int      `toml:"debounce_ms" json:"debounceMs,omitempty"` // read by Debounce
}

// DefaultNESDebounce is next edits' pause where DebounceMS is unset.
const DefaultNESDebounce = 150 * time.Millisecond

// Debounce is the pause after a request before the model is asked:
// debounce_ms, else DefaultNESDebounce.
func (n NES) Debounce() time.Duration {
	return orDefault(time.Duration(n.DebounceMS)*time.Millisecond, DefaultNESDebounce)
}

// NESFormats are the values NES.Format takes.
var NESFormats = []string{"", "auto", "zeta", "chat"}

// Enabled says whether next edit suggestions are on.
func (n NES) Enabled() bool { return n.Model != "" }

// On says whether they are on for a document of language id.
func (n NES) On(language string) bool {
	return n.Enabled() && (len(n.Languages) == 0 || slices.Contains(n.Languages, language))
}

// Zeta says whether the model is asked in Zeta's format.
func (n NES) Zeta() bool {
	return n.Format == "zeta" || (n.Format == "" || n.Format == "auto") && strings.Contains(strings.ToLower(n.Model), "zeta")
}

func mergeNES(base, over NES) NES {
	mergeModel(&base.Model, &base.Provider, &base.BaseURL, over.Model, over.Provider, over.BaseURL)
	if over.Format != "" {
		base.Format = over.Format
	}
	if over.Languages != nil {
		base.Languages = over.Languages
	}
	if over.DebounceMS > 0 {
		base.DebounceMS = over.DebounceMS
	}
	return base
}

// NESTarget is s aimed at the next-edit model: its provider, model and
// server (the agent's where it names none), the same keys.
func (s Settings) NESTarget() Settings {
	return s.target(s.NES.Model, s.NES.Provider, s.NES.BaseURL)
}

func (n NES) validate() error {
	if !slices.Contains(NESFormats, n.Format) {
		return fmt.Errorf("nes: unknown format %q: use auto, zeta or chat", n.Format)
	}
	if n.Provider != "" && !slices.Contains(Providers(), n.Provider) {
		return fmt.Errorf("nes: unknown provider %q", n.Provider)
	}
	return nil
}
