package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A sign-in lands in the user's file and nowhere else: what the file had —
// comments, other settings, tables, another provider's key — stays, the
// old server address goes with the old provider, and the file and its
// folder are the user's alone.
func TestSaveSignInKeepsTheRestOfTheFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "agent-lsp", "config.toml")
	write(t, path, `# my settings
provider = "openai"
model = "old-model"
base_url = "http://127.0.0.1:11434/v1"
max_iterations = 9

[keys]
gemini = "AIza-old"

[mcp.servers.docs]
command = "docs-mcp"
`)
	env := envOf(map[string]string{"XDG_CONFIG_HOME": home})
	got, err := SaveSignIn(env, SignIn{Provider: "groq", Model: "qwen/qwen3-32b", Key: `gsk-"new"`})
	if err != nil || got != path {
		t.Fatalf("SaveSignIn: %q %v", got, err)
	}
	data, _ := os.ReadFile(path)
	text := string(data)
	for _, kept := range []string{"# my settings", "max_iterations = 9", `gemini = "AIza-old"`, "[mcp.servers.docs]", `command = "docs-mcp"`} {
		if !strings.Contains(text, kept) {
			t.Errorf("lost %q:\n%s", kept, text)
		}
	}
	s, _, err := Load("", env)
	if err != nil || s.Provider != "groq" || s.Model != "qwen/qwen3-32b" || s.BaseURL != "" || s.KeyFor("groq") != `gsk-"new"` || s.GeminiKey != "AIza-old" || s.MaxIterations != 9 {
		t.Errorf("loaded %s key %q, gemini %q, max %d (%v):\n%s", s, s.KeyFor("groq"), s.GeminiKey, s.MaxIterations, err, text)
	}
	if runtime.GOOS != "windows" {
		for p, want := range map[string]os.FileMode{path: 0o600} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode().Perm(), err, want)
			}
		}
	}
	if left, _ := filepath.Glob(filepath.Join(home, "agent-lsp", ".config-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A first sign-in makes the file and its folder, the user's alone.
func TestSaveSignInMakesAPrivateFile(t *testing.T) {
	home := t.TempDir()
	env := envOf(map[string]string{"HOME": home})
	path, err := SaveSignIn(env, SignIn{Provider: ProviderOpenAI, Model: "gpt-test", BaseURL: "http://127.0.0.1:8000/v1"})
	if err != nil || path != filepath.Join(home, ".config", "agent-lsp", "config.toml") {
		t.Fatalf("%q %v", path, err)
	}
	s, _, err := Load("", env)
	if err != nil || s.Model != "gpt-test" || s.BaseURL != "http://127.0.0.1:8000/v1" || s.OpenAIKey != "" {
		t.Errorf("loaded %s key %q (%v)", s, s.OpenAIKey, err)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(filepath.Dir(path)); fi.Mode().Perm() != 0o700 {
			t.Errorf("folder mode %v, want 0700", fi.Mode().Perm())
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
		}
	}
}

// A file that is not TOML is not touched: the error says so, nothing is lost.
func TestSaveSignInLeavesABrokenFileAlone(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "agent-lsp", "config.toml")
	write(t, path, "model = \"unterminated\n")
	_, err := SaveSignIn(envOf(map[string]string{"XDG_CONFIG_HOME": home}), SignIn{Provider: ProviderOpenAI, Model: "m", Key: "sk-x"})
	if err == nil || !strings.Contains(err.Error(), "left as it is") {
		t.Errorf("err = %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "model = \"unterminated\n" {
		t.Errorf("the file changed: %q", data)
	}
}
