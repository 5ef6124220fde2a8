//go:build unix

package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestAHostileRepositorysFilesNeverReachTheModel: over the
// LSP wire, a workspace whose AGENTS.md links to a secret outside it, whose
// .agent-lsp.toml links to /dev/zero and whose .mcp.json links outside: the
// server starts, the run goes on, the model's first request holds no
// secret, and the user is told about each file. The control is the same
// secret as a regular AGENTS.md, which the model does get.
func TestAHostileRepositorysFilesNeverReachTheModel(t *testing.T) {
	secret := "ghp_the-users-token-" + toolstest.Marker()
	outside := toolstest.WriteTree(t, map[string]string{
		"id_ed25519": secret + "\n",
		"mcp.json":   `{"mcpServers": {"planted": {"command": "planted"}}}`,
	})
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "done"})
	f := newFixture(t, map[string]string{"main.go": "package main\n"}, srv, nil)
	for link, target := range map[string]string{
		"AGENTS.md": filepath.Join(outside, "id_ed25519"), ".agent-lsp.toml": "/dev/zero", ".mcp.json": filepath.Join(outside, "mcp.json"),
	} {
		if err := os.Symlink(target, filepath.Join(f.root, link)); err != nil {
			t.Fatal(err)
		}
	}
	f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
	f.ask(map[string]any{"prompt": "hi", "uri": f.uri("main.go"), "wait": true})
	body, _ := json.Marshal(srv.Requests()[0])
	if strings.Contains(string(body), secret) || strings.Contains(string(body), "planted") {
		t.Fatalf("the model's first request holds what a link pointed at:\n%s", body)
	}
	st := f.mcpStatus()
	warnings := strings.Join(st.ConfigWarnings, "\n")
	for _, name := range []string{".agent-lsp.toml", ".mcp.json"} {
		if want := filepath.Join(f.root, name) + ": a link leads outside the root"; !strings.Contains(warnings, want) {
			t.Errorf("configWarnings lack %q:\n%s", want, warnings)
		}
	}
	notice := "project instructions left out: " + filepath.Join(f.root, "AGENTS.md") + ": a link leads outside the root"
	f.editor.Wait("the notice about AGENTS.md", func() bool {
		return strings.Contains(strings.Join(f.editor.Logs(), "\n"), notice)
	})

	// The control: the same secret, as a regular AGENTS.md, reaches the model.
	srv = llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "done"})
	f = newFixture(t, map[string]string{"main.go": "package main\n", "AGENTS.md": secret + "\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
	f.ask(map[string]any{"prompt": "hi", "uri": f.uri("main.go"), "wait": true})
	if !strings.Contains(systemPrompt(srv.Requests()[0]), secret) {
		t.Fatal("control: a regular AGENTS.md does not reach the model: the test is blind")
	}
}
