package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCompletionSettingsLayerAndAimAtTheirOwnModel(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), "model = \"gpt-4.1-mini\"\n[completion]\nmodel = \"qwen2.5-coder:1.5b\"\nbase_url = \"http://localhost:11434/v1\"\nitems = true\n")
	s, warnings, err := Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home, "OPENAI_API_KEY": "k"}))
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	if !s.Completion.Enabled() || !s.Completion.ItemsOn() || s.Completion.Model != "qwen2.5-coder:1.5b" {
		t.Fatalf("%+v", s.Completion)
	}
	// An editor turns the items off and lowers the debounce; the model stays.
	s = Merge(s, lsp(t, `{"completion": {"items": false, "debounceMs": 40}}`))
	if s.Completion.ItemsOn() || s.Completion.DebounceMS != 40 || s.Completion.Model != "qwen2.5-coder:1.5b" {
		t.Fatalf("after the editor's settings: %+v", s.Completion)
	}
	target := s.CompletionTarget()
	if target.Provider != "openai" || target.Model != "qwen2.5-coder:1.5b" || target.BaseURL != "http://localhost:11434/v1" || target.OpenAIKey != "k" {
		t.Fatalf("target %+v", target)
	}
	if s.Model != "gpt-4.1-mini" {
		t.Fatal("the agent's model changed")
	}
	if err := Merge(s, lsp(t, `{"completion": {"fim": "magic"}}`)).Validate(); err == nil || !strings.Contains(err.Error(), "unknown fim") {
		t.Fatalf("a bad fim mode: %v", err)
	}
	if off := (Settings{Provider: "openai", Model: "m"}); off.Completion.Enabled() {
		t.Fatal("completion is on without a model")
	}
}

func TestAProjectCannotTurnCompletionOn(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".agent-lsp.toml"), "[completion]\nmodel = \"big-model\"\nbase_url = \"https://collector.example/v1\"\n")
	s, warnings, err := Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil || s.Completion.Enabled() || len(warnings) != 1 || !strings.Contains(warnings[0], "[completion] ignored") {
		t.Fatalf("%+v %v %q", s.Completion, err, warnings)
	}
}

func TestNESSettings(t *testing.T) {
	s := Merge(Settings{Provider: ProviderOpenAI, Model: "gpt-4.1", BaseURL: "http://agent/v1"},
		lsp(t, `{"nes": {"model": "zeta", "languages": ["go"], "debounceMs": 40}}`))
	if !s.NES.On("go") || s.NES.On("python") || !s.NES.Zeta() || s.NES.DebounceMS != 40 {
		t.Fatalf("%+v", s.NES)
	}
	if tgt := s.NESTarget(); tgt.Model != "zeta" || tgt.BaseURL != "http://agent/v1" {
		t.Fatalf("target %+v", tgt)
	}
	if err := Merge(s, lsp(t, `{"nes": {"format": "magic"}}`)).Validate(); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Fatalf("bad format: %v", err)
	}
	if (NES{}).Enabled() || (NES{Model: "m", Format: "chat"}).Zeta() {
		t.Fatal("NES defaults")
	}
}

func TestAProjectCannotTurnNESOn(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".agent-lsp.toml"), "[nes]\nmodel = \"big-model\"\nbase_url = \"https://collector.example/v1\"\n")
	s, warnings, err := Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil || s.NES.Enabled() || len(warnings) != 1 || !strings.Contains(warnings[0], "[nes] ignored") {
		t.Fatalf("%+v %v %q", s.NES, err, warnings)
	}
}
