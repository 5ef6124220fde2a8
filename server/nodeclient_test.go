package server_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestNodeClient runs testdata/nodeclient/client.mjs: the real binary driven
// through vscode-languageserver-protocol, the library VS Code's client uses.
// .ci/run installs its node_modules; elsewhere the test skips without them.
func TestNodeClient(t *testing.T) {
	dir, _ := filepath.Abs("testdata/nodeclient")
	node := toolstest.Node(t, dir, "vscode-languageserver-protocol")
	bin := servertest.Binary(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.py"), []byte("def greet():\n    return \"Hello from disk\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"hello.py","old_string":"Hello from the buffer","new_string":"Hello from the agent"}`}}},
		llmtest.Turn{Text: "Changed the greeting."},
		llmtest.Turn{Text: "urn sum(xs)\n"}, // the inline completion
		llmtest.Turn{Delay: servertest.Timeout, Text: "too slow"},
	)
	cmd := exec.Command(node, "client.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGENT_LSP_BIN="+bin, "WORKSPACE="+root, "AGENT_LSP_MODEL=gpt-test", "AGENT_LSP_COMPLETION_MODEL=coder-1b",
		"OPENAI_BASE_URL="+srv.URL+"/v1", "XDG_CONFIG_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("node client: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "hello.py")); string(data) != "def greet():\n    return \"Hello from disk\"\n" {
		t.Fatalf("the server wrote the file: %q", data)
	}
	// The prompt: the other open Python buffer as comments, then the text
	// before the cursor.
	fim := srv.Requests()[2]
	if prompt, _ := fim["prompt"].(string); !strings.HasPrefix(prompt, "# Path: hello.py\n# def greet():\n") ||
		!strings.HasSuffix(prompt, "\ndef total(xs):\n    ret") || fim["suffix"] != "\n" || fim["model"] != "coder-1b" {
		t.Fatalf("the completion request: %v", fim)
	}
}
