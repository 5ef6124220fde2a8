package acp_test

import (
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

// A session reads the settings again, and the workspace's command policy
// follows: a command the user added to the allowlist since the last
// session runs without asking (the policy kept the first session's list).
func TestANewSessionTakesTheAllowlistAsItIsNow(t *testing.T) {
	run := llmtest.Turn{Calls: []llmtest.Call{{Name: "execute_command", Args: `{"command":"printf allowed"}`}}}
	srv := llmtest.NewOpenAIServer(t, run, llmtest.Turn{Text: "Denied."}, run, llmtest.Turn{Text: "Ran."})
	configHome := t.TempDir()
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, fixtureOptions{env: map[string]string{"XDG_CONFIG_HOME": configHome}})
	f.editor.answer = func(p sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		return sdk.NewRequestPermissionOutcomeSelected(optionOfKind(p, sdk.PermissionOptionKindRejectOnce))
	}
	f.prompt(f.newSession().SessionId, sdk.TextBlock("run printf"))
	if _, asked, _, _ := f.editor.snapshot(); len(asked) != 1 {
		t.Fatalf("off the allowlist: asked %d times, want 1", len(asked))
	}
	dir := filepath.Join(configHome, "agent-lsp")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("allowlist = [\"printf\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.prompt(f.newSession().SessionId, sdk.TextBlock("run printf"))
	if _, asked, _, _ := f.editor.snapshot(); len(asked) != 1 {
		t.Fatalf("allowlisted since: asked %d times in all, want still 1", len(asked))
	}
}
