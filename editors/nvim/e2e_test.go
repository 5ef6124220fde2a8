// Package nvim_test runs the Neovim plugin headless against the real
// agent-lsp binary and a scripted OpenAI-wire model server.
package nvim_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

func TestNeovimAskPreviewApply(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("nvim missing: .ci/run must install Debian's neovim")
		}
		t.Skip("no nvim (apt-get install -y neovim)")
	}
	bin := servertest.Binary(t)
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	onDisk := "def greet():\n    return \"🐍 Hello, World!\"\n"
	if err := os.WriteFile(filepath.Join(root, "hello.py"), []byte(onDisk), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"hello.py"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"hello.py","old_string":"Hello, World!","new_string":"Hello, agent!"}`}}},
		llmtest.Turn{Text: "Changed the greeting."},
		llmtest.Turn{Text: "It greets."},
		llmtest.Turn{Text: "nt(greet())\n"}, // the completion
	)
	plugin, _ := filepath.Abs(".")
	result := filepath.Join(t.TempDir(), "result")
	cmd := exec.Command(nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n",
		"--cmd", "set rtp^="+plugin, "-c", "luafile "+filepath.Join(plugin, "test", "e2e.lua"))
	cmd.Env = append(os.Environ(), "AGENT_LSP_BIN="+bin, "WORKSPACE="+root, "RESULT="+result,
		"AGENT_LSP_MODEL=gpt-test", "AGENT_LSP_COMPLETION_MODEL=coder-1b", "OPENAI_BASE_URL="+srv.URL+"/v1",
		"XDG_CONFIG_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
	done := make(chan error, 1)
	var out []byte
	go func() {
		var err error
		out, err = cmd.CombinedOutput()
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("nvim: %v\n%s", err, out)
		}
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("nvim did not finish\n%s", out)
	}
	got, err := os.ReadFile(result)
	if err != nil || string(got) != "ok" {
		t.Fatalf("e2e.lua: %q %v\nnvim output:\n%s", got, err, out)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "hello.py")); string(data) != onDisk {
		t.Fatalf("disk changed: %q", data)
	}
	task := srv.Requests()[1]["messages"].([]any)[3].(map[string]any)["content"].(string)
	if !strings.Contains(task, "# 🐍 greetings, unsaved") {
		t.Fatalf("the agent did not read the unsaved buffer: %q", task)
	}
	if asked := agentrun.UserWords(llmtest.LastUserText(srv.Requests()[3])); !strings.HasPrefix(asked, "explain the greeting") {
		t.Fatalf("the code action's ask sent %q", asked)
	}
	if fim := srv.Requests()[4]; fim["model"] != "coder-1b" || !strings.HasSuffix(fim["prompt"].(string), "Hello, agent!\"\npri") {
		t.Fatalf("the completion request: %v", fim)
	}
}
