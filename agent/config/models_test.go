package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// Keys come from the user's own file ([keys], as agent-lsp setup writes
// them) or the environment, whose variable wins; a project's [keys] is
// ignored with a warning, never used.
func TestKeysFromTheUserFileOrTheEnvironment(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), "provider = \"groq\"\n[keys]\nopenai = \"sk-file\"\ngroq = \"gsk-file\"\n")
	write(t, filepath.Join(ws, ".agent-lsp.toml"), "[keys]\ngemini = \"stolen\"\ngroq = \"gsk-project\"\n")
	s, warnings, err := Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if s.OpenAIKey != "sk-file" || s.GeminiKey != "" || s.KeyFor("groq") != "gsk-file" {
		t.Errorf("keys openai %q gemini %q groq %q, want the user file's only", s.OpenAIKey, s.GeminiKey, s.KeyFor("groq"))
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "[keys] ignored") || strings.Contains(warnings[0], "stolen") {
		t.Errorf("warnings %q, want the project's [keys] named as ignored, without its values", warnings)
	}
	s, _, _ = Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home, "OPENAI_API_KEY": "sk-env", "GROQ_API_KEY": "gsk-env"}))
	if s.OpenAIKey != "sk-env" || s.KeyFor("groq") != "gsk-env" {
		t.Errorf("keys openai %q groq %q, want the environment's", s.OpenAIKey, s.KeyFor("groq"))
	}
	if w, err := s.Wire(); err != nil || w.SDK != ProviderOpenAI || w.Key != "gsk-env" || !strings.Contains(w.BaseURL, "groq.com") {
		t.Errorf("groq's wire: %+v %v, want OpenAI's at groq's address with its key", w, err)
	}
}

// What a sign-in fixes — no model, no key, nothing found — matches
// ErrSignIn (ACP's auth_required); a configuration error does not.
func TestWhatASignInFixes(t *testing.T) {
	for _, c := range []struct {
		s      Settings
		signIn bool
	}{
		{Settings{Provider: ProviderOpenAI}, true},
		{Settings{Provider: ProviderOpenAI, Model: "gpt-4o"}, true},
		{Settings{Provider: ProviderGemini, Model: "gemini-2.5-flash"}, true},
		{Settings{Provider: "deepseek", Model: "deepseek-v4-flash"}, true},
		{Settings{Provider: "claude", Model: "x"}, false},
		{Settings{Provider: ProviderOpenAI, Model: "m", OpenAIKey: "k", Thinking: "lots"}, false},
	} {
		err := c.s.Validate()
		if err == nil || errors.Is(err, ErrSignIn) != c.signIn {
			t.Errorf("%+v: %v, sign-in %v", c.s, err, c.signIn)
		}
		if c.signIn && !strings.Contains(err.Error(), "agent-lsp setup") {
			t.Errorf("%v: does not name agent-lsp setup", err)
		}
	}
}

// A model's window and whether it takes images are the catalog's, served
// anywhere; context_window still wins, and an unknown model keeps the
// name's guess (0 here: the agent's DefaultContextWindow).
func TestWindowAndImagesFromTheCatalog(t *testing.T) {
	hosted := Settings{Provider: ProviderOpenAI, Model: "gpt-4o-mini"}
	proxied := Settings{Provider: ProviderOpenAI, BaseURL: "http://127.0.0.1:4000/v1", Model: "gpt-4o-mini"}
	local := Settings{Provider: ProviderOpenAI, BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5-coder:7b"}
	m, ok := hosted.CatalogModel()
	if !ok || hosted.Window() != m.ContextWindow || proxied.Window() != m.ContextWindow || !hosted.SeesImages() || !proxied.SeesImages() {
		t.Errorf("gpt-4o-mini: window %d/%d of %d, images %v/%v", hosted.Window(), proxied.Window(), m.ContextWindow, hosted.SeesImages(), proxied.SeesImages())
	}
	if _, priced := proxied.ModelPrice(); priced {
		t.Error("a model served by an unknown server got its host's list price")
	}
	if local.Window() != 0 || local.SeesImages() {
		t.Errorf("an unknown local model: window %d, images %v", local.Window(), local.SeesImages())
	}
	hosted.ContextWindow = 50_000
	if hosted.Window() != 50_000 {
		t.Errorf("context_window = 50000 gave %d", hosted.Window())
	}
}
