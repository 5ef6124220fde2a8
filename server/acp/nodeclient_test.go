package acp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestNodeClient runs testdata/nodeclient/client.mjs: the real binary
// driven through @agentclientprotocol/sdk, the official TypeScript ACP
// library, whose schemas check what we send. `make deps` installs its
// node_modules; elsewhere the test skips without them.
func TestNodeClient(t *testing.T) {
	dir, _ := filepath.Abs("testdata/nodeclient")
	node := toolstest.Node(t, dir, "@agentclientprotocol/sdk")
	bin := servertest.Binary(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.py"), []byte("def greet():\n    return \"Hello from disk\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A second workspace whose model speaks the JSON tool protocol: its
	// answers come whole, not streamed.
	toolstest.WriteFiles(t, filepath.Join(root, "whole"), map[string]string{".agent-lsp.toml": "tool_protocol = \"json\"\n"})
	script := []llmtest.Turn{
		{Text: "Reading it first. ", Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"hello.py"}`}}},
		{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"hello.py","old_string":"Hello from the buffer","new_string":"Hello from the agent"}`}}},
		{Reasoning: "Deciding what to say.", Text: "Changed the greeting."},
		{Reasoning: "Weighing it whole.", Text: `{"thought": "easy", "response": "Answered whole."}`},
		{Calls: []llmtest.Call{
			{Name: "update_plan", Args: `{"steps":[{"step":"Run the echo","status":"in_progress"},{"step":"Report","status":"pending"}]}`},
			{Name: "execute_command", Args: `{"command":"echo streamed; sleep 0.3; echo done"}`}}},
		{Text: "Ran it."},
		{Delay: waitFor, Text: "too late"},
	}
	srvModels := []string{"gpt-test", "gpt-other"}
	calls := filepath.Join(t.TempDir(), "model-calls")
	var mu sync.Mutex
	n := 0
	srv := llmtest.NewOpenAIResponder(t, func(map[string]any) llmtest.Turn {
		mu.Lock()
		defer mu.Unlock()
		n++
		os.WriteFile(calls, []byte(strconv.Itoa(n)), 0o644)
		if n > len(script) {
			t.Errorf("unexpected model call %d", n)
			return llmtest.Turn{Text: "unexpected"}
		}
		return script[n-1]
	})
	srv.SetModels(srvModels, "")
	cmd := exec.Command(node, "client.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGENT_LSP_BIN="+bin, "WORKSPACE="+root, "MODEL_CALLS_FILE="+calls, "MODEL_CALLS="+strconv.Itoa(len(script)), "AGENT_LSP_MODEL=gpt-test",
		"OPENAI_BASE_URL="+srv.URL+"/v1", "XDG_CONFIG_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("node client: %v", err)
	}
}
