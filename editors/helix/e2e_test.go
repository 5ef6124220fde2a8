package helix_test

// The Helix end-to-end test: Debian 13's Helix (hx 25.01), in the chroot
// .ci/run builds, runs in a tmux pane against the real agent-lsp binary
// and a scripted OpenAI-wire model server, set up as README.md says; the
// test types what a user types and reads what the pane shows.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// defaultChroot is where .ci/run builds Debian 13 (trixie) with hx.
const defaultChroot = "/var/cache/agent-lsp-ci/trixie"

// helixPane is one hx running in a tmux pane of its own tmux server.
type helixPane struct {
	t      *testing.T
	tmux   []string // tmux -S socket
	base   string   // the chroot
	dir    string   // the test's directory on the host, under base
	root   string   // the workspace on the host
	log    string   // hx's log on the host
	screen string   // the last capture
}

// inside is path as the chroot sees it.
func (h *helixPane) inside(path string) string { return strings.TrimPrefix(path, h.base) }

// startHelix starts hx on file in a workspace holding files, with
// agent-lsp talking to model; hx and tmux are stopped when the test ends.
// It skips where the chroot's hx or tmux is missing (in CI it fails).
func startHelix(t *testing.T, model *llmtest.Server, files map[string]string, file string) *helixPane {
	t.Helper()
	base := os.Getenv("AGENT_LSP_HELIX_CHROOT")
	if base == "" {
		base = defaultChroot
	}
	missing := func(what string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s (in CI, .ci/run must provide it)", what)
		}
		t.Skip(what)
	}
	if _, err := os.Stat(filepath.Join(base, "usr", "bin", "hx")); err != nil {
		missing(fmt.Sprintf("no hx in the chroot %s (%v): .ci/run builds it with debootstrap", base, err))
	}
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		missing("no tmux (apt-get install -y tmux)")
	}
	bin := servertest.Binary(t)
	dir, err := os.MkdirTemp(filepath.Join(base, "tmp"), "agent-lsp-helix-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h := &helixPane{t: t, base: base, dir: dir, root: filepath.Join(dir, "root"), log: filepath.Join(dir, "hx.log")}
	for _, d := range []string{"bin", "root/.git", "config/helix", "cache", "state", "data", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, bin, filepath.Join(dir, "bin", "agent-lsp"), 0o755)
	for name, content := range files {
		path := filepath.Join(h.root, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "config", "helix", "config.toml"), readmeConfig(t))
	writeFile(t, filepath.Join(dir, "config", "helix", "languages.toml"), testLanguages(t))

	h.tmux = []string{tmuxBin, "-S", filepath.Join(dir, "tmux.sock"), "-f", "/dev/null"}
	env := []string{"HOME=" + h.inside(dir), "PATH=" + h.inside(filepath.Join(dir, "bin")) + ":/usr/bin:/bin", "TERM=xterm-256color", "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + h.inside(filepath.Join(dir, "config")), "XDG_CACHE_HOME=" + h.inside(filepath.Join(dir, "cache")),
		"XDG_STATE_HOME=" + h.inside(filepath.Join(dir, "state")), "XDG_DATA_HOME=" + h.inside(filepath.Join(dir, "data")),
		"TMPDIR=" + h.inside(filepath.Join(dir, "tmp")),
		"AGENT_LSP_MODEL=gpt-test", "OPENAI_BASE_URL=" + model.URL + "/v1"}
	// hx finds its runtime through /proc/self/exe: the chroot gets a
	// /proc of its own, in a mount namespace that goes with it.
	argv := []string{"unshare", "--mount", "--pid", "--fork", "--mount-proc=" + filepath.Join(base, "proc")}
	if os.Geteuid() != 0 {
		argv = append(argv, "--map-root-user")
	}
	argv = append(argv, "chroot", base, "/usr/bin/env", "-i")
	argv = append(argv, env...)
	argv = append(argv, "/bin/sh", "-c", fmt.Sprintf("cd %s && exec hx -v --log %s %s", h.inside(h.root), h.inside(h.log), file))
	h.run(slices.Concat([]string{"new-session", "-d", "-s", "hx", "-x", "150", "-y", "40"}, argv)...)
	t.Cleanup(func() {
		if t.Failed() {
			log, _ := os.ReadFile(h.log)
			t.Logf("the last screen:\n%s\nhx's log (end):\n%s", h.capture(), tail(string(log), 6000))
			if keep := os.Getenv("AGENT_LSP_HELIX_LOG"); keep != "" {
				os.WriteFile(keep, log, 0o644)
			}
		}
		exec.Command(h.tmux[0], slices.Concat(h.tmux[1:], []string{"kill-server"})...).Run()
	})
	return h
}

func (h *helixPane) run(args ...string) string {
	h.t.Helper()
	out, err := exec.Command(h.tmux[0], slices.Concat(h.tmux[1:], args)...).CombinedOutput()
	if err != nil {
		h.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys sends keys as tmux names them ("Space", "Enter", "Escape", "Down").
func (h *helixPane) keys(keys ...string) {
	h.run(slices.Concat([]string{"send-keys", "-t", "hx"}, keys)...)
}

// typeText types text literally, in one burst as a fast typist or a key
// repeat does: Helix 25.01 then sends the keys' didChange out of order
// (versions …, 17, 27, 18, …), which the server puts back in order.
func (h *helixPane) typeText(text string) {
	h.run("send-keys", "-t", "hx", "-l", text)
}

func (h *helixPane) capture() string {
	out, err := exec.Command(h.tmux[0], slices.Concat(h.tmux[1:], []string{"capture-pane", "-p", "-t", "hx"})...).Output()
	if err != nil {
		return fmt.Sprintf("(capture-pane: %v)", err)
	}
	return string(out)
}

// waitFor polls the pane until cond holds of what it shows, and returns that.
func (h *helixPane) waitFor(what string, cond func(screen string) bool) string {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		h.screen = h.capture()
		if cond(h.screen) {
			return h.screen
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitText waits until the pane shows text.
func (h *helixPane) waitText(text string) string {
	h.t.Helper()
	return h.waitFor(fmt.Sprintf("%q on the screen", text), func(s string) bool { return strings.Contains(s, text) })
}

// statusLine is the pane's last line, where Helix shows a message.
func statusLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	return lines[len(lines)-1]
}

// codeActions opens the code-action menu (space a) once it lists want,
// and returns its titles in order, each as drawn (cut at the menu's width).
func (h *helixPane) codeActions(want string) []string {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		h.keys("Space", "a")
		// Until the server answers initialize, Helix says no server offers any.
		for range 20 {
			time.Sleep(100 * time.Millisecond)
			items := menuItems(h.captureStyled())
			if slices.ContainsFunc(items, func(item string) bool { return strings.HasPrefix(item, want) }) {
				return items
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("no code action %q in the menu", want)
		}
		h.escape()
	}
}

// escape sends Escape, and waits: a key right after it would arrive with
// it as one Alt- key.
func (h *helixPane) escape() {
	h.keys("Escape")
	time.Sleep(300 * time.Millisecond)
}

// captureStyled is the pane with its colours (SGR sequences).
func (h *helixPane) captureStyled() string {
	out, err := exec.Command(h.tmux[0], slices.Concat(h.tmux[1:], []string{"capture-pane", "-e", "-p", "-t", "hx"})...).Output()
	if err != nil {
		h.t.Fatalf("capture-pane -e: %v", err)
	}
	return string(out)
}

var (
	sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")
	// menuBackground starts a row of the menu in the default theme: the
	// status line has it too, and starts with the mode.
	menuBackground = "\x1b[48;5;15m"
	modeLine       = regexp.MustCompile(`^ (NOR|INS|SEL) `)
)

// menuItems are the rows of the popup menu on a styled screen.
func menuItems(styled string) []string {
	var items []string
	for _, row := range strings.Split(styled, "\n") {
		i := strings.LastIndex(row, menuBackground)
		if i < 0 {
			continue
		}
		item := sgr.ReplaceAllString(row[i:], "")
		if modeLine.MatchString(item) {
			continue
		}
		// A menu longer than ten rows scrolls, its scroll bar on the right.
		if item = strings.TrimRight(strings.TrimSpace(item), " ▐"); item != "" {
			items = append(items, item)
		}
	}
	return items
}

// pick opens the code-action menu and picks the item that starts with
// title, moving down to it.
func (h *helixPane) pick(title string) {
	h.t.Helper()
	items := h.codeActions(title)
	i := slices.IndexFunc(items, func(item string) bool { return strings.HasPrefix(item, title) })
	if i < 0 {
		h.t.Fatalf("no code action %q in %q", title, items)
	}
	for range i {
		h.keys("Down")
	}
	h.keys("Enter")
}

// readmeConfig is the config.toml README.md gives.
func readmeConfig(t *testing.T) string {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```toml\n(.*?)```").FindStringSubmatch(string(readme))
	if m == nil || !strings.Contains(m[1], "[editor.lsp]") {
		t.Fatal("README.md gives no config.toml with [editor.lsp]")
	}
	return m[1]
}

// testLanguages is languages.toml's agent-lsp server, beside no other
// server for Python: the chroot has none, and Helix would try each.
func testLanguages(t *testing.T) string {
	data, err := os.ReadFile("languages.toml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := toml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	servers := cfg["language-server"]
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(map[string]any{
		"language-server": servers,
		"language":        []map[string]any{{"name": "python", "language-servers": []string{"agent-lsp"}}},
	}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, mode); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

const helloPy = "def greet():\n    return \"🐍 Hello, World!\"\n"

// longAnswer is more than a message's one row can show.
const longAnswer = "It greets, in three steps.\n\n1. It builds the greeting.\n2. It adds the snake.\n3. It returns it: the end.\n"

// TestHelixEndToEnd drives Helix as the README says a user does, one
// session through: the code-action menu, the AGENT: comment, a short
// answer in the status line, a long one opened, a proposal shown and
// applied (a new file too), an approval picked, and a run cancelled.
func TestHelixEndToEnd(t *testing.T) {
	model := llmtest.NewOpenAIResponder(t, scriptedModel(t))
	h := startHelix(t, model, map[string]string{"hello.py": helloPy}, "hello.py")

	// Listing the actions calls no model; Helix sorts source actions last.
	items := h.codeActions("Ask agent")
	if len(items) == 0 || !strings.HasPrefix(items[0], "Ask agent…") || items[len(items)-1] != "Review file with agent" {
		t.Fatalf("the menu: %q", items)
	}
	h.escape()

	// A short answer: the last message, so it stays in the status line
	// after the progress ends.
	h.ask("explain the greeting")
	h.waitFor("the short answer in the status line", func(s string) bool { return statusLine(s) == "agent-lsp: run-1: It greets." })
	time.Sleep(1500 * time.Millisecond)
	if line := statusLine(h.capture()); line != "agent-lsp: run-1: It greets." {
		t.Fatalf("the answer did not stay in the status line: %q", line)
	}
	h.deleteFirstLine()

	// A long answer: opened beside the file, all of it.
	h.ask("explain at length")
	h.waitText("3. It returns it: the end.")
	h.waitText("2. It adds the snake.")
	h.command("q")
	h.deleteFirstLine()

	// A proposal: its answer and diff are opened; Show opens the diff,
	// Apply edits the buffer (emoji intact) and creates the new file.
	h.ask("change the greeting")
	h.waitText(`+    return "🐍 Hello, agent!"`)
	h.waitText("## Proposed changes (proposal-3)")
	h.command("q")
	items = h.codeActions("Apply agent proposal")
	for _, want := range []string{"Apply agent proposal (2 file(s), proposal-3)", "Show agent proposal", "Discard agent proposal"} {
		if !slices.ContainsFunc(items, func(item string) bool { return strings.HasPrefix(item, want) }) {
			t.Fatalf("the menu lacks %q: %q", want, items)
		}
	}
	// Helix lists source actions last: the proposal's come before the review.
	if n := len(items); n < 4 || !strings.HasPrefix(items[n-4], "Apply agent proposal") || items[n-1] != "Review file with agent" {
		t.Errorf("the menu with a proposal: %q", items)
	}
	h.escape()
	h.pick("Show agent proposal")
	h.waitText("proposal-3.diff")
	h.waitText(`-    return "🐍 Hello, World!"`)
	h.command("q")
	h.pick("Apply agent proposal")
	h.waitText(`    return "🐍 Hello, agent!"`)
	h.deleteFirstLine()
	h.command("wa")
	h.waitFor("hello.py saved", func(string) bool {
		data, _ := os.ReadFile(filepath.Join(h.root, "hello.py"))
		return string(data) == "def greet():\n    return \"🐍 Hello, agent!\"\n"
	})
	h.waitFor("notes.txt created and saved", func(string) bool {
		data, _ := os.ReadFile(filepath.Join(h.root, "notes.txt"))
		return string(data) == "a\nb 世界\n"
	})

	// An approval: the command off the allowlist waits for a code action.
	h.ask("print the greeting")
	// The answers are quick fixes: Helix lists them first, Deny first.
	if items := h.codeActions("Allow once"); len(items) < 3 || items[0] != "Deny: printf made-by-agent (run-4)" || !strings.HasPrefix(items[1], "Allow once: printf made-by-agent") {
		t.Errorf("the menu during an approval: %q", items)
	}
	h.escape()
	h.pick("Allow once: printf made-by-agent")
	h.waitFor("the answer after the command", func(s string) bool { return strings.Contains(statusLine(s), "Printed it.") })
	h.deleteFirstLine()

	// Cancel: the run ends at once and its model request is abandoned.
	h.ask("wait for cancel")
	h.waitFor("the model asked", func(string) bool { return model.Abandoned() == 0 && len(model.Requests()) == 7 })
	if items := h.codeActions("Cancel agent run"); !strings.HasPrefix(items[len(items)-2], "Cancel agent run (run-5") {
		t.Errorf("the menu during a run: %q", items)
	}
	h.escape()
	h.pick("Cancel agent run")
	h.waitFor("the run cancelled", func(s string) bool { return model.Abandoned() == 1 })
	h.waitText("Cancelled")

	reqs := model.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d model requests, want 7", len(reqs))
	}
	if out := lastToolResult(reqs[5]); !strings.HasPrefix(out, "made-by-agent\n") || !strings.Contains(out, "[exit code: 0]") {
		t.Errorf("the command's output did not reach the model: %q", out)
	}
}

// ask writes request in an AGENT: comment on the first line, as the
// "Ask agent…" action inserts it, and picks its action.
func (h *helixPane) ask(request string) {
	h.t.Helper()
	h.keys("g", "g")
	h.pick("Ask agent")
	h.waitFor("the AGENT: comment", func(s string) bool { return strings.Contains(s, "1  # AGENT:") })
	h.keys("g", "g", "A")
	h.typeText(request)
	h.escape()
	h.pick("Agent: " + request)
}

// deleteFirstLine deletes the buffer's first line (the AGENT: comment),
// and pauses as a person would: Helix 25.01 sends a change from a task
// of its own, and a code-action request right after can overtake it.
func (h *helixPane) deleteFirstLine() {
	h.t.Helper()
	h.keys("g", "g", "x", "d")
	time.Sleep(300 * time.Millisecond)
}

// command runs a typed command (":q").
func (h *helixPane) command(cmd string) {
	h.t.Helper()
	h.keys(":")
	h.typeText(cmd)
	h.keys("Enter")
}

// scriptedModel answers each run by its task and its step in it (the
// model's turns since the task).
func scriptedModel(t *testing.T) func(map[string]any) llmtest.Turn {
	scripts := map[string][]llmtest.Turn{
		"explain the greeting": {{Text: "It greets."}},
		"explain at length":    {{Text: longAnswer}},
		"change the greeting": {
			{Calls: []llmtest.Call{
				{Name: "edit_file", Args: `{"path":"hello.py","old_string":"Hello, World!","new_string":"Hello, agent!"}`},
				{Name: "write_file", Args: `{"path":"notes.txt","content":"a\nb 世界\n"}`},
			}},
			{Text: "Changed the greeting."},
		},
		"print the greeting": {
			{Calls: []llmtest.Call{{Name: "execute_command", Args: `{"command":"printf made-by-agent"}`}}},
			{Text: "Printed it."},
		},
		"wait for cancel": {{Delay: 10 * time.Minute, Text: "Too late."}},
	}
	return func(body map[string]any) llmtest.Turn {
		task, step := llmtest.CurrentTask(body, "assistant")
		for name, turns := range scripts {
			if strings.Contains(task, "AGENT: "+name) || strings.HasPrefix(task, name) {
				if step < len(turns) {
					return turns[step]
				}
			}
		}
		t.Errorf("the model was asked an unscripted step %d of %q", step, task)
		return llmtest.Turn{Text: "unscripted"}
	}
}

// lastToolResult is the last tool message of an OpenAI request body.
func lastToolResult(body map[string]any) string {
	last := ""
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		if m, _ := m.(map[string]any); m["role"] == "tool" {
			last, _ = m["content"].(string)
		}
	}
	return last
}

// TestHelixBurstOfKeys: a line typed in one burst reaches the server as
// typed, though Helix 25.01 sends its didChange out of order.
func TestHelixBurstOfKeys(t *testing.T) {
	model := llmtest.NewOpenAIResponder(t, scriptedModel(t))
	h := startHelix(t, model, map[string]string{"hello.py": helloPy}, "hello.py")
	h.codeActions("Ask agent")
	h.escape()
	const instruction = "make the greeting warmer, and name the user in it from now on"
	h.keys("g", "g", "O")
	h.typeText("# AGENT: " + instruction)
	h.escape()
	h.keys("g", "g")
	items := h.codeActions("Agent: ")
	if !slices.Contains(items, "Agent: "+instruction) {
		t.Errorf("the server read another line than was typed: %q", items)
	}
}
