package config

import (
	"fmt"
	"slices"
	"time"
)

// Completion configures code completion as you type (inline ghost text, and
// optionally completion items), on its own model: small and fast, and never
// the agent's. Off while Model is empty.
type Completion struct {
	Model string `toml:"model" json:"model,omitempty"`
	// Provider and BaseURL default to the agent's when empty.
	Provider string `toml:"provider" json:"provider,omitempty"`
	BaseURL  string `toml:"base_url" json:"baseUrl,omitempty"`
	// FIM is how the model is asked: "auto" (default: fill-in-the-middle on
	// /v1/completions for OpenAI-compatible local servers, a chat prompt for
	// OpenAI and Gemini), "suffix", a FIM token template (qwen, starcoder,
	// codellama, deepseek, codestral) or "chat".
	FIM string `toml:"fim" json:"fim,omitempty"`
	// Items also answers textDocument/completion, for clients without inline
	// completion (Helix, Emacs, Neovim before 0.12). Off by default.
	Items      *bool `toml:"items" json:"items,omitempty"`
	DebounceMS int   `toml:"debounce_ms" json:"debounceMs,omitempty"` // read by Debounce
	MaxLines   int   `toml:"max_lines" json:"maxLines,omitempty"`     // read by Lines
}

// Completion's defaults, where DebounceMS and MaxLines are unset.
const (
	DefaultCompletionDebounce = 75 * time.Millisecond
	DefaultCompletionMaxLines = 8
)

// Debounce is the pause in typing before the model is asked: debounce_ms,
// else DefaultCompletionDebounce.
func (c Completion) Debounce() time.Duration {
	return orDefault(time.Duration(c.DebounceMS)*time.Millisecond, DefaultCompletionDebounce)
}

// Lines is the most lines a suggestion keeps: max_lines, else
// DefaultCompletionMaxLines.
func (c Completion) Lines() int { return orDefault(c.MaxLines, DefaultCompletionMaxLines) }

// orDefault is v where it is set (above zero), else def.
func orDefault[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// FIMModes are the values Completion.FIM takes.
var FIMModes = []string{"", "auto", "suffix", "chat", "qwen", "starcoder", "codellama", "deepseek", "codestral"}

// Enabled says whether completion is on.
func (c Completion) Enabled() bool { return c.Model != "" }

// ItemsOn says whether textDocument/completion is answered too.
func (c Completion) ItemsOn() bool { return isTrue(c.Items) }

func mergeCompletion(base, over Completion) Completion {
	mergeModel(&base.Model, &base.Provider, &base.BaseURL, over.Model, over.Provider, over.BaseURL)
	if over.FIM != "" {
		base.FIM = over.FIM
	}
	if over.Items != nil {
		base.Items = over.Items
	}
	if over.DebounceMS > 0 {
		base.DebounceMS = over.DebounceMS
	}
	if over.MaxLines > 0 {
		base.MaxLines = over.MaxLines
	}
	return base
}

// CompletionTarget is s aimed at the completion model: its provider, model
// and server (the agent's where it names none), the same keys.
func (s Settings) CompletionTarget() Settings {
	return s.target(s.Completion.Model, s.Completion.Provider, s.Completion.BaseURL)
}

// mergeModel lays a model of its own (completion's, next edits') over
// another, field by field: a base URL belongs to the provider it was set
// for, so a new provider without one drops it.
func mergeModel(model, provider, baseURL *string, overModel, overProvider, overBaseURL string) {
	if overModel != "" {
		*model = overModel
	}
	if overProvider != "" {
		if overProvider != *provider && overBaseURL == "" {
			*baseURL = ""
		}
		*provider = overProvider
	}
	if overBaseURL != "" {
		*baseURL = overBaseURL
	}
}

// target is s aimed at a model of its own: its provider and server where
// it names them, else the agent's, with the same keys; no tool protocol or
// thinking, which are the agent's.
func (s Settings) target(model, provider, baseURL string) Settings {
	t := s.For(ModelRef{Provider: s.Provider, Model: model, BaseURL: s.BaseURL})
	if provider != "" && provider != s.Provider {
		t.Provider, t.BaseURL = provider, ""
	}
	if baseURL != "" {
		t.BaseURL = baseURL
	}
	t.ToolProtocol, t.Thinking = "", ""
	return t
}

func (c Completion) validate() error {
	if !slices.Contains(FIMModes, c.FIM) {
		return fmt.Errorf("completion: unknown fim %q: use auto, suffix, chat, qwen, starcoder, codellama, deepseek or codestral", c.FIM)
	}
	if c.Provider != "" && !slices.Contains(Providers(), c.Provider) {
		return fmt.Errorf("completion: unknown provider %q", c.Provider)
	}
	return nil
}
