//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestAskOverAHostileRepository: `ask` in a workspace whose AGENTS.md links
// to a secret outside it, whose .agent-lsp.toml links to /dev/zero and whose
// .mcp.json is a FIFO runs, says why it left each out, and sends the model
// no secret; the user's config still applies. The control is the same
// secret as a regular AGENTS.md, which the model does get.
func TestAskOverAHostileRepository(t *testing.T) {
	secret := "AKIA-the-users-key-" + toolstest.Marker()
	outside := toolstest.WriteTree(t, map[string]string{"credentials": secret + "\n"})
	ws := newWorkspace(t, map[string]string{"hello.py": helloPy})
	for link, target := range map[string]string{"AGENTS.md": filepath.Join(outside, "credentials"), ".agent-lsp.toml": "/dev/zero"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(ws, ".mcp.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "done"})
	r := runCLI(t, map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "XDG_CONFIG_HOME": userConfig(t, "model = \"users-model\"\n")},
		"ask", "--workspace", ws, "hi")
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"agent-lsp: warning: " + filepath.Join(ws, ".agent-lsp.toml") + ": a link leads outside the root",
		"agent-lsp: warning: " + filepath.Join(ws, ".mcp.json") + ": not a regular file (a named pipe): ignored",
		"[AGENT] project instructions left out: " + filepath.Join(ws, "AGENTS.md") + ": a link leads outside the root",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	first := srv.Requests()[0]
	body, _ := json.Marshal(first)
	if strings.Contains(string(body), secret) {
		t.Fatalf("the model's first request holds the secret:\n%s", body)
	}
	if first["model"] != "users-model" {
		t.Errorf("the user's config was lost: model %v", first["model"])
	}

	toolstest.WriteFiles(t, ws, map[string]string{"AGENTS.md.real": secret + "\n"})
	os.Remove(filepath.Join(ws, "AGENTS.md"))
	os.Rename(filepath.Join(ws, "AGENTS.md.real"), filepath.Join(ws, "AGENTS.md"))
	srv = llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "done"})
	r = runCLI(t, map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "AGENT_LSP_MODEL": "m"}, "ask", "--workspace", ws, "hi")
	if r.code != 0 || !strings.Contains(systemOf(srv.Requests()[0]), secret) {
		t.Fatalf("control: a regular AGENTS.md does not reach the model (exit %d): the test is blind\n%s", r.code, r.stderr)
	}
}
