// Package emacs_test runs agent-lsp.el in a headless Emacs (Debian's 28 with
// elpa-eglot 1.9) against the real agent-lsp binary and a scripted
// OpenAI-wire model server.
package emacs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// emacs returns the emacs binary, skipping the test where Emacs or eglot is
// missing (CI installs both, so there it fails instead).
func emacs(t *testing.T) string {
	t.Helper()
	missing := func(what string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s missing: .ci/run must install Debian's emacs-nox and elpa-eglot", what)
		}
		t.Skipf("no %s (apt-get install -y emacs-nox elpa-eglot)", what)
	}
	bin, err := exec.LookPath("emacs")
	if err != nil {
		missing("emacs")
	}
	if err := exec.Command(bin, "--batch", "--eval", `(kill-emacs (if (locate-library "eglot") 0 1))`).Run(); err != nil {
		missing("eglot")
	}
	return bin
}

// batch runs emacs --batch with args and stdin, in a private HOME, failing
// the test after 30 seconds. No user init file is read, but the site start
// files are: Debian puts its elpa packages on the load path there (emacs -Q
// would not find eglot).
func batch(t *testing.T, bin, stdin string, env []string, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--batch"}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), append([]string{"HOME=" + t.TempDir()}, env...)...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("emacs did not finish in 30 s\n%s", out)
	}
	return out, err
}

func TestByteCompilesWithoutWarnings(t *testing.T) {
	bin := emacs(t)
	dir := t.TempDir()
	src, err := os.ReadFile("agent-lsp.el")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agent-lsp.el"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := batch(t, bin, "", nil, "-L", dir, "--eval", "(setq byte-compile-error-on-warn t)",
		"-f", "batch-byte-compile", filepath.Join(dir, "agent-lsp.el"))
	if err != nil || strings.Contains(string(out), "Warning") {
		t.Fatalf("byte-compile: %v\n%s", err, out)
	}
}

func TestEglotAskApply(t *testing.T) {
	t.Parallel()
	askApply(t, emacs(t), "eglot", "commands")
}

// The same through the code-action menu: "Ask agent…" (the package reads the
// prompt, as it tells the server under experimental.agentLsp.promptInput),
// then "Apply agent proposal".
func TestEglotCodeActions(t *testing.T) {
	t.Parallel()
	askApply(t, emacs(t), "eglot", "code-actions")
}

// TestClientsSayWhoseSettingsTheyAre: the lsp-mode client, whose settings
// are agent-lsp-settings from the user's init file, says they are the
// user's own (experimental.agentLsp.userSettings), so the server takes its
// initializationOptions whole; eglot, whose pushes a repository's
// .dir-locals.el can fill, does not, so the server filters them.
func TestClientsSayWhoseSettingsTheyAre(t *testing.T) {
	bin := emacs(t)
	plugin, _ := filepath.Abs(".")
	out, err := batch(t, bin, "", nil, "-f", "package-activate-all", "-L", plugin, "-l", filepath.Join(plugin, "test", "capabilities.el"))
	if err != nil {
		t.Fatalf("capabilities.el: %v\n%s", err, out)
	}
	var got struct {
		Eglot, LspMode struct {
			AgentLsp map[string]bool `json:"agentLsp"`
		}
	}
	line := string(out[bytes.LastIndexByte(bytes.TrimSpace(out), '\n')+1:])
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := map[string]bool{"promptInput": true}; !maps.Equal(got.Eglot.AgentLsp, want) {
		t.Errorf("eglot says %v, want %v", got.Eglot.AgentLsp, want)
	}
	if want := map[string]bool{"promptInput": true, "userSettings": true}; !maps.Equal(got.LspMode.AgentLsp, want) {
		t.Errorf("lsp-mode says %v, want %v", got.LspMode.AgentLsp, want)
	}
}

// lsp-mode is Debian's elpa-lsp-mode, which .ci/run installs.
func lspMode(t *testing.T) string {
	bin := emacs(t)
	if exec.Command(bin, "--batch", "--eval", `(kill-emacs (if (locate-library "lsp-mode") 0 1))`).Run() != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("lsp-mode missing: .ci/run must install Debian's elpa-lsp-mode")
		}
		t.Skip("no lsp-mode (apt-get install -y elpa-lsp-mode)")
	}
	return bin
}

func TestLspModeAskApply(t *testing.T) {
	t.Parallel()
	askApply(t, lspMode(t), "lsp-mode", "commands")
}

func TestLspModeCodeActions(t *testing.T) {
	t.Parallel()
	askApply(t, lspMode(t), "lsp-mode", "code-actions")
}

// askApply runs test/e2e.el with client (eglot or lsp-mode) and flow
// (commands or code-actions): an unsaved edit, a prompt typed in the
// minibuffer, the proposal's diff, the apply. It checks what Emacs wrote, the
// disk and what the model was sent. With eglot, which can't create files
// through an edit, the agent also writes a new file: it must open unsaved.
func askApply(t *testing.T, bin, client, flow string) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	onDisk := "def greet():\n    return \"🐍 Hello, World!\"\n"
	if err := os.WriteFile(filepath.Join(root, "hello.py"), []byte(onDisk), 0o644); err != nil {
		t.Fatal(err)
	}
	edits := []llmtest.Call{{Name: "edit_file", Args: `{"path":"hello.py","old_string":"Hello, World!","new_string":"Hello, agent!"}`}}
	if client == "eglot" {
		edits = append(edits, llmtest.Call{Name: "write_file", Args: `{"path":"new/greeting.txt","content":"Hello, agent!\n"}`})
	}
	model := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"hello.py"}`}}},
		llmtest.Turn{Calls: edits},
		llmtest.Turn{Text: "Changed the greeting."},
	)
	// stdin: the prompt, then "y" to eglot's "Server wants to edit"
	// confirmation (lsp-mode applies without asking).
	read := runE2E(t, bin, "change the greeting\ny\n", client, flow, root, model.URL+"/v1", t.TempDir())

	if client == "eglot" {
		offered := strings.Split(read("commands"), "\n")
		for _, c := range packageCommands(t) {
			if !slices.Contains(offered, c) {
				t.Errorf("agent-lsp.el sends %s, which the server does not offer (%v)", c, offered)
			}
		}
		if got := read("new"); got != "Hello, agent!\n|t|nil" {
			t.Errorf("new file's buffer (text|modified|read-only): %q, want it unsaved and writable", got)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "new")); !os.IsNotExist(err) {
		t.Errorf("the new file's directory was created on disk (%v)", err)
	}
	unsaved := "# 🐍 greetings, unsaved\n"
	if got := read("before"); got != unsaved+onDisk {
		t.Errorf("buffer changed before the apply:\n%s", got)
	}
	if diff := read("diff"); !strings.Contains(diff, "+    return \"🐍 Hello, agent!\"") {
		t.Errorf("the diff buffer lacks the change:\n%s", diff)
	}
	if got, want := read("buffer"), unsaved+"def greet():\n    return \"🐍 Hello, agent!\"\n"; got != want {
		t.Errorf("buffer after apply:\n%s\nwant:\n%s", got, want)
	}
	if read("modified") != "modified" {
		t.Error("the buffer was saved; it should only be modified")
	}
	if data, _ := os.ReadFile(filepath.Join(root, "hello.py")); string(data) != onDisk {
		t.Errorf("disk changed: %q", data)
	}

	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	if task := llmtest.FirstUserText(reqs[0]); !strings.Contains(task, "change the greeting") || !strings.Contains(task, "File: hello.py") {
		t.Errorf("the task does not name the prompt and the file: %q", task)
	}
	if read := toolResults(reqs[1]); !strings.Contains(read, "# 🐍 greetings, unsaved") {
		t.Errorf("read_file did not see the unsaved buffer: %q", read)
	}
	// The settings (eglot: eglot-workspace-configuration's :agent-lsp
	// section; lsp-mode: agent-lsp-settings) reached the server.
	if m := reqs[0]["model"]; m != "gpt-emacs" {
		t.Errorf("model %v, want the editor's gpt-emacs", m)
	}
}

// runE2E runs test/e2e.el with client and flow on the workspace root, the
// model at baseURL and the user's config directory config. It fails the test
// unless the script says ok, and returns a reader of what it wrote.
func runE2E(t *testing.T, bin, stdin, client, flow, root, baseURL, config string) func(name string) string {
	t.Helper()
	server := servertest.Binary(t)
	out := t.TempDir()
	plugin, _ := filepath.Abs(".")
	env := []string{
		"CLIENT=" + client, "FLOW=" + flow, "AGENT_LSP_BIN=" + server, "WORKSPACE=" + root, "OUT=" + out,
		"AGENT_LSP_MODEL=gpt-test", "OPENAI_BASE_URL=" + baseURL,
		"XDG_CONFIG_HOME=" + config, "XDG_CACHE_HOME=" + t.TempDir(),
		"XDG_STATE_HOME=" + t.TempDir(), "XDG_DATA_HOME=" + t.TempDir(),
	}
	if flow == "next-edit" {
		// Elsewhere next edits stay off: the server would suggest them in
		// the background, as for any client that does not ask.
		env = append(env, "NES_MODEL="+nesModel, "NES_BASE_URL="+baseURL)
	}
	log, err := batch(t, bin, stdin, env, "-f", "package-activate-all", "-L", plugin, "--eval", "(setq load-prefer-newer t)", "-l", filepath.Join(plugin, "test", "e2e.el"))
	read := func(name string) string {
		data, _ := os.ReadFile(filepath.Join(out, name))
		return string(data)
	}
	if err != nil || read("result") != "ok" {
		t.Fatalf("e2e.el: %q (emacs: %v)\n%s", read("result"), err, log)
	}
	return read
}

const nesModel = "nes-emacs"

func TestEglotNextEdit(t *testing.T) {
	t.Parallel()
	nextEdit(t, emacs(t), "eglot")
}

func TestLspModeNextEdit(t *testing.T) {
	t.Parallel()
	nextEdit(t, lspMode(t), "lsp-mode")
}

// nextEdit runs test/e2e.el's next-edit flow: the user renames greet's
// parameter; the scripted next-edit model renames its use (after an
// emoji, whose UTF-16 column differs from Emacs's: eglot converts, the
// lsp-mode client asks for UTF-32); TAB jumps there, TAB accepts, and
// the server counts the acceptance. A second rename's suggestion is
// dismissed with C-g. eglot gets the nes settings from config.toml (the
// server refuses them from eglot, which a repository can fill); lsp-mode
// from agent-lsp-settings.
func nextEdit(t *testing.T, bin, client string) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	glyph := "🐍"
	onDisk := "def greet(name):\n    return \"" + glyph + " Hello, \" + name\n"
	if err := os.WriteFile(filepath.Join(root, "hello.py"), []byte(onDisk), 0o644); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`def greet\((\w+)\)`)
	uses := regexp.MustCompile(`\b(name|who)\b`)
	var asked []string
	model := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		// The editable region (the whole small file), renamed throughout.
		region, ok := servertest.NextEditRegion(body)
		if !ok || body["model"] != nesModel {
			return llmtest.Turn{Text: "not a next-edit request"}
		}
		asked = append(asked, region)
		m := param.FindStringSubmatch(region)
		if m == nil {
			return llmtest.Turn{Text: "no parameter"}
		}
		return llmtest.Turn{Text: "```python\n" + uses.ReplaceAllString(region, m[1]) + "```\n"}
	})
	config := t.TempDir()
	if client == "eglot" {
		toml := fmt.Sprintf("[nes]\nmodel = %q\nbase_url = %q\ndebounce_ms = 10\n", nesModel, model.URL+"/v1")
		os.MkdirAll(filepath.Join(config, "agent-lsp"), 0o755)
		if err := os.WriteFile(filepath.Join(config, "agent-lsp", "config.toml"), []byte(toml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := runE2E(t, bin, "", client, "next-edit", root, model.URL+"/v1", config)

	want := "hint=  next edit at line 2 · TAB\nreplaced=name|inserted=who|face=agent-lsp-next-edit-deleted"
	if got := read("shown"); got != want {
		t.Errorf("shown:\n%s\nwant:\n%s", got, want)
	}
	// Line 2, at "name": 25 characters in (with eglot 26 UTF-16 units).
	if got := read("jumped"); got != "2:25|no hint" {
		t.Errorf("after the first TAB, point at (line:column|hint) %s, want 2:25 and no hint", got)
	}
	accepted := "def greet(who):\n    return \"" + glyph + " Hello, \" + who\n"
	if got := read("accepted"); got != accepted+"|" {
		t.Errorf("after the second TAB (buffer|overlays):\n%s\nwant:\n%s|", got, accepted)
	}
	status := strings.Split(read("status"), "|")
	if len(status) != 3 || !strings.Contains(status[0], nesModel) || status[1] == "0" || status[2] != "1" {
		t.Errorf("agent.status nextEdits (model|calls|accepted): %v, want %s with 1 accepted", status, nesModel)
	}
	dismissed := strings.Replace(accepted, "(who)", "(person)", 1)
	if got := read("dismissed"); got != dismissed+"||nil" {
		t.Errorf("after C-g (buffer|overlays|suggestion):\n%s\nwant:\n%s||nil", got, dismissed)
	}
	if len(asked) < 2 || !strings.Contains(asked[0], "def greet(who)") {
		t.Errorf("the model was asked %d times, first about %q", len(asked), asked)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "hello.py")); string(data) != onDisk {
		t.Errorf("disk changed: %q", data)
	}
}

// packageCommands are the agent.* commands agent-lsp.el sends.
func packageCommands(t *testing.T) []string {
	src, err := os.ReadFile("agent-lsp.el")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, m := range regexp.MustCompile(`"(agent\.[a-zA-Z]+)"`).FindAllStringSubmatch(string(src), -1) {
		if !slices.Contains(cmds, m[1]) {
			cmds = append(cmds, m[1])
		}
	}
	if len(cmds) < 5 {
		t.Fatalf("agent-lsp.el sends only %v", cmds)
	}
	return cmds
}

// toolResults joins the tool messages of an OpenAI request body.
func toolResults(body map[string]any) string {
	var b strings.Builder
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		if m, _ := m.(map[string]any); m["role"] == "tool" {
			s, _ := m["content"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}
