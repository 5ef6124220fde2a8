package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// TestTheBinaryRunsCommandsInItsSandbox drives the built executable: its
// helper mode must take over before anything else starts, and the command
// must get neither the API key nor the workspace itself.
func TestTheBinaryRunsCommandsInItsSandbox(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "alpha\n"})
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{ID: "call_1", Name: "execute_command",
			Args: `{"command":"echo pid=$$; env; cat a.txt"}`}}},
		llmtest.Turn{Text: "done"},
	)
	config := userConfig(t, "allowlist = [\"env\"]\n")
	cmd := exec.Command(servertest.Binary(t), "ask", "--workspace", ws, "look around")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + config,
		"XDG_STATE_HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir(),
		"AGENT_LSP_MODEL=gpt-test", "OPENAI_BASE_URL=" + srv.URL + "/v1", "OPENAI_API_KEY=sk-canary-binary"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	level := tools.SandboxLevel().Level
	if !strings.Contains(stderr.String(), "[SANDBOX] commands run at level "+string(level)) {
		t.Errorf("the level is not reported:\n%s", stderr.String())
	}
	msgs := srv.Requests()[1]["messages"].([]any)
	observation := msgs[len(msgs)-1].(map[string]any)["content"].(string)
	if !strings.Contains(observation, "alpha") || strings.Contains(observation, "sk-canary") {
		t.Errorf("observation:\n%s", observation)
	}
	// In a new pid namespace the helper is 1 and the shell one of the first.
	var pid int
	fmt.Sscanf(observation, "pid=%d", &pid)
	if level == sandbox.Full && (pid <= 1 || pid > 64) {
		t.Errorf("the command is not in the helper's pid namespace (pid %d):\n%s", pid, observation)
	}
}
