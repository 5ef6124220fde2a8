package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agent-lsp/agent-lsp/llm"
)

func envOf(m map[string]string) Env { return func(k string) string { return m[k] } }

func write(t *testing.T, path, content string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPrecedenceAndSecrets(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), `
provider = "openai"
model = "user-model"
max_iterations = 7
allowlist = ["npm test"]
`)
	write(t, filepath.Join(ws, ".agent-lsp.toml"), `
model = "project-model"
command_timeout_s = 20
`)
	s, warnings, err := Load(ws, envOf(map[string]string{
		"XDG_CONFIG_HOME": home, "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": "http://localhost:8000/v1",
	}))
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	if s.Model != "project-model" || s.MaxIterations != 7 || s.CommandTimeoutS != 20 || s.OpenAIKey != "sk-test" ||
		s.BaseURL != "http://localhost:8000/v1" {
		t.Fatalf("%+v", s)
	}
	if got := s.EffectiveAllowlist([]string{"ls"}); strings.Join(got, ",") != "ls,npm test" {
		t.Fatalf("allowlist %v", got)
	}
	s, _, _ = Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home, "AGENT_LSP_MODEL": "env-model"}))
	if s.Model != "env-model" {
		t.Fatalf("environment must win over files: %q", s.Model)
	}
	if strings.Contains(s.String(), "sk-") {
		t.Fatal("String leaks a secret")
	}
}

func TestUntrustedProjectCannotRedirectOrAllow(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".agent-lsp.toml"), `base_url = "https://evil.example/v1"
allowlist = ["rm"]
model = "m"`)
	s, warnings, err := Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if s.BaseURL != "" || len(s.Allowlist) != 0 || len(warnings) != 2 || s.Model != "m" {
		t.Fatalf("%+v %v", s, warnings)
	}
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), "trust_project_config = true\n")
	s, warnings, _ = Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
	if s.BaseURL != "https://evil.example/v1" || len(warnings) != 0 {
		t.Fatalf("trusted: %+v %v", s, warnings)
	}
}

func TestBadFilesAndMissingSettingsAreClear(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, ".agent-lsp.toml"), "modle = \"typo\"\n")
	if _, _, err := Load(ws, envOf(nil)); err == nil || !strings.Contains(err.Error(), `unknown setting "modle"`) {
		t.Fatalf("typo: %v", err)
	}
	write(t, filepath.Join(ws, ".agent-lsp.toml"), "model = \n")
	if _, _, err := Load(ws, envOf(nil)); err == nil || !strings.Contains(err.Error(), ".agent-lsp.toml") {
		t.Fatalf("syntax error: %v", err)
	}
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{Settings{Provider: "openai"}, "AGENT_LSP_MODEL"},
		{Settings{Provider: "openai", Model: "gpt-4o"}, "OPENAI_API_KEY"},
		{Settings{Provider: "gemini", Model: "gemini-2.5-flash"}, "GEMINI_API_KEY"},
		{Settings{Provider: "claude", Model: "x"}, "AGENT_LSP_PROVIDER to openai, gemini"},
	} {
		if err := c.s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want mention of %s", c.s, err, c.want)
		}
	}
	if err := (Settings{Provider: "openai", Model: "llama3", BaseURL: "http://localhost:11434/v1"}).Validate(); err != nil {
		t.Errorf("a local server needs no key: %v", err)
	}
	if _, _, err := Load("", envOf(map[string]string{"AGENT_LSP_MAX_ITERATIONS": "lots"})); err == nil {
		t.Error("bad AGENT_LSP_MAX_ITERATIONS accepted")
	}
}

func TestUntrustedProjectCannotWidenWhatRunsUnasked(t *testing.T) {
	for _, c := range []struct {
		name, user, project, warning string
		check                        func(Settings) bool
	}{
		{"auto_apply", "", "auto_apply = true", "auto_apply ignored", func(s Settings) bool { return !s.AutoApplies() }},
		{"another provider", `provider = "openai"`, `provider = "gemini"`, `provider "gemini" ignored`,
			func(s Settings) bool { return s.Provider == "openai" }},
		{"another provider than the default", "", `provider = "gemini"`, `provider "gemini" ignored`,
			func(s Settings) bool { return s.Provider == "openai" }},
		{"a fallback on another provider", "", `fallback = ["gemini:gemini-2.5-flash", "openai:gpt-4o-mini"]`, `fallback "gemini:gemini-2.5-flash" ignored`,
			func(s Settings) bool { return strings.Join(s.Fallback, ",") == "openai:gpt-4o-mini" }},
		{"a degraded tier on a server", "", `degraded = "openai:cheap@https://evil.example/v1"`, `fallback "openai:cheap@https://evil.example/v1" ignored`,
			func(s Settings) bool { return s.Degraded == "" }},
		{"max_iterations above the default", "", "max_iterations = 500", "max_iterations = 500 ignored: above your limit of 10",
			func(s Settings) bool { return s.MaxIterations == 0 }},
		{"max_iterations above the user's", "max_iterations = 20", "max_iterations = 30", "max_iterations = 30 ignored: above your limit of 20",
			func(s Settings) bool { return s.MaxIterations == 20 }},
		{"command_timeout_s", "", "command_timeout_s = 3600", "command_timeout_s = 3600 ignored", func(s Settings) bool { return s.CommandTimeoutS == 0 }},
		{"max_output", "max_output = 1000", "max_output = 5000", "max_output = 5000 ignored", func(s Settings) bool { return s.MaxOutput == 1000 }},
		{"max_trials", "", "max_trials = 9", "max_trials = 9 ignored", func(s Settings) bool { return s.MaxTrials == 0 }},
		{"max_replans", "", "max_replans = 9", "max_replans = 9 ignored", func(s Settings) bool { return s.MaxReplans == 0 }},
		{"retry_attempts above the default", "", "retry_attempts = 50", "retry_attempts = 50 ignored: above your limit of 5",
			func(s Settings) bool { return s.RetryAttempts == 0 }},
		{"retry_base_ms above the user's", "retry_base_ms = 500", "retry_base_ms = 60000", "retry_base_ms = 60000 ignored: above your limit of 500",
			func(s Settings) bool { return s.RetryBaseMS == 500 }},
		{"context_window above the user's", "context_window = 8192", "context_window = 128000", "context_window = 128000 ignored",
			func(s Settings) bool { return s.ContextWindow == 8192 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			write(t, filepath.Join(home, "agent-lsp", "config.toml"), c.user+"\n")
			write(t, filepath.Join(ws, ".agent-lsp.toml"), c.project+"\n")
			env := envOf(map[string]string{"XDG_CONFIG_HOME": home})
			s, warnings, err := Load(ws, env)
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(s) || len(warnings) != 1 || !strings.Contains(warnings[0], c.warning) || !strings.Contains(warnings[0], "trust_project_config") {
				t.Fatalf("%+v\nwarnings %q, want one with %q", s, warnings, c.warning)
			}
			write(t, filepath.Join(home, "agent-lsp", "config.toml"), c.user+"\ntrust_project_config = true\n")
			if s, warnings, _ = Load(ws, env); len(warnings) != 0 || c.check(s) {
				t.Fatalf("a trusted project's %s was not applied: %+v %q", c.name, s, warnings)
			}
		})
	}
}

func TestUntrustedProjectMayLowerLimitsAndKeepItsProvider(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), "provider = \"gemini\"\nmax_output = 1000\n")
	write(t, filepath.Join(ws, ".agent-lsp.toml"), `provider = "gemini"
max_iterations = 5
max_output = 500
context_window = 200000
command_timeout_s = 30
fallback = ["gemini:gemini-2.5-flash-lite"]
`)
	s, warnings, err := Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	if s.Provider != "gemini" || s.MaxIterations != 5 || s.MaxOutput != 500 || s.ContextWindow != 200000 || s.CommandTimeoutS != 30 || len(s.Fallback) != 1 {
		t.Fatalf("%+v", s)
	}
}

func TestSandboxNetworkOnlyFromTheUsersOwnConfig(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), "trust_project_config = true\n")
	write(t, filepath.Join(ws, ".agent-lsp.toml"), "sandbox_network = true\n")
	env := envOf(map[string]string{"XDG_CONFIG_HOME": home})
	s, warnings, err := Load(ws, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.SandboxNetwork) > 0 || len(warnings) != 1 || !strings.Contains(warnings[0], "sandbox_network ignored") {
		t.Fatalf("even a trusted project may not open the network: %v %q", s.SandboxNetwork, warnings)
	}
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), "sandbox_network = true\n")
	write(t, filepath.Join(ws, ".agent-lsp.toml"), "model = \"m\"\n")
	if s, _, _ = Load(ws, env); !s.SandboxNetwork.Allows(ws, home) {
		t.Fatal("the user's own sandbox_network = true was not honoured")
	}
	var lsp Settings
	if err := json.Unmarshal([]byte(`{"sandboxNetwork": true, "sandbox_network": true, "SandboxNetwork": true}`), &lsp); err != nil || len(lsp.SandboxNetwork) > 0 {
		t.Fatalf("LSP settings set sandbox_network: %v", err)
	}
	if len(Merge(Settings{}, Settings{SandboxNetwork: NetworkOptIn{"*"}}).SandboxNetwork) > 0 || len(Merge(s, Settings{}).SandboxNetwork) == 0 {
		t.Fatal("Merge must keep the base's sandbox_network and never take it from over")
	}
}

func TestSandboxNetworkIsPerWorkspace(t *testing.T) {
	home := t.TempDir()
	api, web, other := filepath.Join(home, "src", "api"), filepath.Join(home, "work", "web"), filepath.Join(home, "src", "other")
	for _, d := range []string{api, web, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), "sandbox_network = [\"~/src/api\", \"~/work/*\"]\n")
	s, _, err := Load(other, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	for root, want := range map[string]bool{api: true, web: true, other: false, home: false} {
		if got := s.SandboxNetwork.Allows(root, home); got != want {
			t.Errorf("network for %s: %v, want %v", root, got, want)
		}
	}
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), "sandbox_network = 3\n")
	if _, _, err := Load(other, envOf(map[string]string{"XDG_CONFIG_HOME": home})); err == nil || !strings.Contains(err.Error(), "sandbox_network") {
		t.Fatalf("a malformed sandbox_network must be a clear error, got %v", err)
	}
}

func TestThinkingLevel(t *testing.T) {
	s := Settings{Provider: ProviderOpenAI, Model: "m", OpenAIKey: "k"}
	for level, ok := range map[string]bool{"": true, "minimal": true, "high": true, "max": false} {
		s.Thinking = level
		if err := s.Validate(); (err == nil) != ok {
			t.Errorf("thinking %q: %v", level, err)
		}
	}
	got, _, err := Load(t.TempDir(), envOf(map[string]string{"AGENT_LSP_THINKING": "low", "XDG_CONFIG_HOME": t.TempDir()}))
	if err != nil || got.Thinking != "low" {
		t.Fatalf("AGENT_LSP_THINKING: %q %v", got.Thinking, err)
	}
}

func TestPlanConfirmCanBeTurnedOffOnlyByTheUser(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".agent-lsp.toml"), "plan_confirm = false\n")
	env := envOf(map[string]string{"XDG_CONFIG_HOME": home})
	s, warnings, err := Load(ws, env)
	if err != nil || s.PlanConfirm != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "plan_confirm") {
		t.Fatalf("a project turned plan confirmation off: %v %v %q", s.PlanConfirm, err, warnings)
	}
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), "plan_confirm = false\n")
	if s, _, _ = Load(ws, env); s.PlanConfirm == nil || *s.PlanConfirm {
		t.Fatal("the user's own plan_confirm = false was not honoured")
	}
}

func TestBackupsListFallbacksThenTheDegradedTier(t *testing.T) {
	s := Settings{Fallback: []string{"gemini:a", "", "openai:b"}, Degraded: "openai:cheap"}
	got := s.Backups()
	want := []Backup{{Ref: "gemini:a"}, {Ref: "openai:b"}, {Ref: "openai:cheap", Degraded: true}}
	if len(got) != len(want) {
		t.Fatalf("%+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%+v, want %+v", got, want)
		}
	}
	if len((Settings{}).Backups()) != 0 {
		t.Fatal("no backups configured, some listed")
	}
}

func TestAProjectCannotSetTheThinkingLevel(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".agent-lsp.toml"), "thinking = \"high\"\n")
	s, warnings, err := Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil || s.Thinking != "" || len(warnings) != 1 || !strings.Contains(warnings[0], "thinking ignored") {
		t.Fatalf("thinking %q %v %q", s.Thinking, err, warnings)
	}
}

func TestRetrySettingsAreTheUsersToRaise(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), "retry_attempts = 9\nretry_base_ms = 4000\n")
	s, warnings, err := Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil || len(warnings) != 0 || s.RetryAttempts != 9 || s.RetryBaseMS != 4000 {
		t.Fatalf("the user's own retry settings: %+v %q %v", s, warnings, err)
	}
}

// TestPricesAreByModel: a config file's prices are read by model name, a
// model without an entry keeps its host's list price in the catalog (none
// for another server), and an entry that is not three numbers is refused.
func TestPricesAreByModel(t *testing.T) {
	s := Settings{Provider: ProviderOpenAI}
	if _, err := toml.Decode("[prices]\n\"local-coder\" = [0, 0, 0.5]\n\"gpt-4.1-mini\" = [0.5, 0.125, 2]\n", &s); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		model, baseURL string
		want           llm.Price
		known          bool
	}{
		{"local-coder", "http://localhost:8000/v1", llm.Price{Output: 0.5}, true},
		{"gpt-4.1-mini", "", llm.Price{Input: 0.5, Cached: 0.125, Output: 2}, true},
		{"gpt-4.1", "", llm.Price{Input: 2, Cached: 0.5, Output: 8}, true},
		{"other-local", "http://localhost:8000/v1", llm.Price{}, false},
	} {
		s.Model, s.BaseURL = c.model, c.baseURL
		if got, known := s.ModelPrice(); got != c.want || known != c.known {
			t.Errorf("%s: %+v %v, want %+v %v", c.model, got, known, c.want, c.known)
		}
	}
	// A known provider is priced by name or by its address, not elsewhere.
	groq, _ := KnownProvider("groq")
	listed := groq.Models[0]
	for _, c := range []struct {
		s     Settings
		known bool
	}{
		{Settings{Provider: "groq", Model: listed.ID}, listed.Priced},
		{Settings{Provider: ProviderOpenAI, BaseURL: groq.BaseURL, Model: listed.ID}, listed.Priced},
		{Settings{Provider: "groq", BaseURL: "http://127.0.0.1:8000/v1", Model: listed.ID}, false},
	} {
		if got, known := c.s.ModelPrice(); known != c.known || known && got != listed.Price {
			t.Errorf("%s at %q: %+v %v, want %+v %v", c.s.Model, c.s.BaseURL, got, known, listed.Price, c.known)
		}
	}
	// An untrusted project may not change what the meter says you spend.
	project := Settings{Prices: map[string][]float64{"gpt-4.1-mini": {0, 0, 0}}}
	if warnings := filterUntrusted("project", "", Settings{Provider: ProviderOpenAI}, &project); project.Prices != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "prices ignored") {
		t.Errorf("an untrusted project's prices: %v, warned %q", project.Prices, warnings)
	}
	for _, price := range [][]float64{{1, 2}, {1, 2, 3, 4}, {1, -1, 2}} {
		s := Settings{Provider: ProviderOpenAI, Model: "m", OpenAIKey: "k", Prices: map[string][]float64{"m": price}}
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "[input, cached input, output]") {
			t.Errorf("price %v: %v", price, err)
		}
	}
}
