package acp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestSignInThroughTheTerminal is the sign-in as a registry user meets
// it, through the real wire with the official TypeScript ACP library
// (testdata/nodeclient/signin.mjs): initialize lists the terminal set-up;
// session/new with no model answers auth_required; the set-up, started
// with the method's args in a terminal (tmux) and typed into as a user
// types, picks an OpenAI-compatible server (a scripted one speaking
// OpenAI's wire), a key and a model, and saves them; then a new
// session's turn is answered by that model with that key. The set-up
// writes the user's config alone (0600) and never shows the key.
func TestSignInThroughTheTerminal(t *testing.T) {
	dir, _ := filepath.Abs("testdata/nodeclient")
	node := toolstest.Node(t, dir, "@agentclientprotocol/sdk")
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no tmux: .ci/run installs it")
		}
		t.Skip("no tmux (apt-get install -y tmux)")
	}
	bin := servertest.Binary(t)
	const key, answer = "sk-typed-in-the-terminal", "Hello from the model the set-up chose."
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "ready"}, llmtest.Turn{Text: answer})
	srv.SetModels([]string{"coder-large", "tiny-embed"}, "")
	home, root := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TMPDIR=" + os.TempDir()}
	argsFile := filepath.Join(t.TempDir(), "setup-args")
	signin := func(phase string) {
		t.Helper()
		cmd := exec.Command(node, "signin.mjs", phase)
		cmd.Dir = dir
		cmd.Env = append(slices.Clone(env), "AGENT_LSP_BIN="+bin, "WORKSPACE="+root, "SETUP_ARGS_FILE="+argsFile, "EXPECT_ANSWER="+answer)
		out, err := cmd.CombinedOutput()
		t.Logf("signin.mjs %s:\n%s", phase, out)
		if err != nil {
			t.Fatalf("signin.mjs %s: %v", phase, err)
		}
	}
	signin("before")
	var args []string
	if data, err := os.ReadFile(argsFile); err != nil || json.Unmarshal(data, &args) != nil {
		t.Fatalf("the set-up's args: %s %v", data, err)
	}

	term := newTerminal(t, tmuxBin, append(slices.Clone(env), "TERM=xterm-256color"), root, append([]string{bin}, args...))
	term.waitText("Provider [1]:")
	term.typeLine("4")
	term.waitText("Server address")
	term.typeLine(srv.URL + "/v1")
	term.waitText("API key")
	term.typeLine(key)
	term.waitText("Model [")
	term.typeLine("coder-large")
	screen := term.waitText("Saved to")
	t.Logf("what the user saw:\n%s", strings.TrimRight(term.history(), "\n"))
	if code := term.exitStatus(); code != "0" {
		t.Errorf("the set-up exited %s:\n%s", code, screen)
	}
	if strings.Contains(term.history(), key) {
		t.Errorf("the terminal showed the key:\n%s", term.history())
	}
	config := filepath.Join(home, "config", "agent-lsp", "config.toml")
	fi, err := os.Stat(config)
	if err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("the user's config: %v %v, want mode 0600", fi, err)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("the set-up wrote into the workspace: %v", entries)
	}

	signin("after")
	if keys := srv.Keys(); len(keys) != 2 || keys[0] != key || keys[1] != key {
		t.Errorf("model calls with keys %q, want the set-up's test call and the turn, with the key typed", keys)
	}
}

// terminal is one program in a tmux pane of its own tmux server.
type terminal struct {
	t      *testing.T
	tmux   []string
	status string // the file the program's exit status is written to
}

func newTerminal(t *testing.T, tmuxBin string, env []string, dir string, argv []string) *terminal {
	tmp := t.TempDir()
	socket := filepath.Join(tmp, "tmux.sock")
	term := &terminal{t: t, tmux: []string{tmuxBin, "-S", socket, "-f", "/dev/null"}, status: filepath.Join(tmp, "status")}
	cmd := append([]string{"new-session", "-d", "-s", "setup", "-x", "160", "-y", "50", "-c", dir, "env", "-i"}, env...)
	// The shell writes the exit status down: tmux's own #{pane_dead_status}
	// stayed empty for a program that had ended, in two CI runs.
	wrapped := append([]string{"/bin/sh", "-c", `"$@"; echo $? > "$STATUS_FILE"`, "sh"}, argv...)
	term.run(append(append(cmd, "STATUS_FILE="+term.status), wrapped...)...)
	term.run("set-option", "-t", "setup", "remain-on-exit", "on")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the terminal:\n%s", term.history())
		}
		exec.Command(term.tmux[0], append(term.tmux[1:], "kill-server")...).Run()
	})
	return term
}

func (term *terminal) run(args ...string) string {
	term.t.Helper()
	out, err := exec.Command(term.tmux[0], append(slices.Clone(term.tmux[1:]), args...)...).CombinedOutput()
	if err != nil {
		term.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// typeLine types text as keys, then Enter.
func (term *terminal) typeLine(text string) {
	term.run("send-keys", "-t", "setup", "-l", text)
	term.run("send-keys", "-t", "setup", "Enter")
}

// history is everything the pane showed, scrolled off or not.
func (term *terminal) history() string {
	out, _ := exec.Command(term.tmux[0], append(slices.Clone(term.tmux[1:]), "capture-pane", "-p", "-S", "-", "-t", "setup")...).Output()
	return string(out)
}

// waitText polls the pane until it shows text, and returns the screen.
func (term *terminal) waitText(text string) string {
	term.t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		if screen := term.history(); strings.Contains(screen, text) {
			return screen
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("timed out waiting for %q on the screen", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// exitStatus is the program's exit status once it has ended.
func (term *terminal) exitStatus() string {
	term.t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		if data, err := os.ReadFile(term.status); err == nil && strings.HasSuffix(string(data), "\n") {
			return strings.TrimSpace(string(data))
		}
		if time.Now().After(deadline) {
			return "(still running)"
		}
		time.Sleep(50 * time.Millisecond)
	}
}
