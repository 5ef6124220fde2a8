package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestAKilledAskLeavesNothingAfterTheNextStart kills `agent-lsp ask` with
// SIGKILL while its command runs: the command dies with it, and what the
// view left in the temp dir is gone after the next `ask`, and after the
// next `serve`.
func TestAKilledAskLeavesNothingAfterTheNextStart(t *testing.T) {
	if tools.SandboxLevel().Level == sandbox.None {
		t.Skip("no OS sandbox here: a killed parent's command lives on")
	}
	ws := newWorkspace(t, map[string]string{"a.txt": "alpha\n"})
	marker := toolstest.Marker()
	tmp := t.TempDir()
	env := func(url string) []string {
		return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + userConfig(t, "allowlist = [\"sleep\"]\n"),
			"XDG_STATE_HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir(), "TMPDIR=" + tmp,
			"AGENT_LSP_MODEL=gpt-test", "OPENAI_BASE_URL=" + url + "/v1", "OPENAI_API_KEY=sk-test"}
	}
	sleepy := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{ID: "call_1", Name: "write_file", Args: `{"path":"b.txt","content":"staged\n"}`},
			{ID: "call_2", Name: "execute_command", Args: `{"command":"sleep ` + marker + `"}`}}},
		llmtest.Turn{Text: "done"},
	)
	killed := exec.Command(servertest.Binary(t), "ask", "--workspace", ws, "sleep")
	killed.Env = env(sleepy.URL)
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	toolstest.Poll(t, "the command to start", func() bool { return len(toolstest.Alive(marker)) > 0 })
	left := func() []string {
		m, _ := filepath.Glob(filepath.Join(tmp, fmt.Sprintf("agent-lsp-*-%d.*", killed.Process.Pid)))
		return m
	}
	killed.Process.Signal(syscall.SIGKILL)
	killed.Wait()
	toolstest.Poll(t, "the command to die with ask", func() bool { return len(toolstest.Alive(marker)) == 0 })
	if len(left()) == 0 {
		t.Fatal("control: the killed ask left no view, so the sweep is not tested")
	}

	quick := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "nothing to do"})
	next := exec.Command(servertest.Binary(t), "ask", "--workspace", ws, "hi")
	next.Env = env(quick.URL)
	if out, err := next.CombinedOutput(); err != nil {
		t.Fatalf("the next ask: %v\n%s", err, out)
	}
	if l := left(); len(l) > 0 {
		t.Errorf("the next ask left the killed one's dirs: %v", l)
	}

	// The same for a server's start: leave a dir of a dead process again.
	dead := exec.Command("true")
	dead.Run()
	stale := filepath.Join(tmp, fmt.Sprintf("agent-lsp-view-%d.1-123", dead.Process.Pid))
	os.MkdirAll(filepath.Join(stale, "upper"), 0o700)
	serve := exec.Command(servertest.Binary(t), "serve")
	serve.Env = env(quick.URL)
	stdin, _ := serve.StdinPipe()
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); serve.Wait() }()
	toolstest.Poll(t, "the server's start to sweep the dead process's view", func() bool {
		_, err := os.Stat(stale)
		return os.IsNotExist(err)
	})
}
