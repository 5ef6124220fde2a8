// Package nvim_test runs the Neovim plugin headless against the real
// agent-lsp binary and a scripted OpenAI-wire model server, on every Neovim
// it finds: the machine's (Debian 12's 0.7.2 in CI) and the one in each
// chroot AGENT_LSP_NVIM_CHROOT names (Debian 13's 0.10, built by .ci/run).
package nvim_test

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// defaultChroots are where .ci/run builds Debian 13 (trixie, Neovim 0.10)
// and Debian testing (Neovim 0.11+) with debootstrap.
const defaultChroots = "/var/cache/agent-lsp-ci/trixie:/var/cache/agent-lsp-ci/testing"

// neovim is one Neovim to run the scripts on: argv starts it, and it sees
// the host's directory base as / (empty: the host's own /). missing says
// why there is none to run.
type neovim struct {
	name    string
	argv    []string
	base    string
	missing string
}

func TestNeovimEndToEnd(t *testing.T) {
	bin := servertest.Binary(t)
	for _, nv := range neovims() {
		t.Run(nv.name, func(t *testing.T) {
			if nv.missing != "" {
				if os.Getenv("CI") != "" {
					t.Fatal(nv.missing + " (in CI, .ci/run must provide it)")
				}
				t.Skip(nv.missing)
			}
			root, requests := runScript(t, nv, bin, "e2e.lua")
			checkDisk(t, root, map[string]*string{
				"hello.py":   ptr(helloPy),  // changed in the buffer, never saved
				"notes.txt":  ptr("a\nb\n"), // the new file, applied and written: no extra line
				"readme.txt": nil,           // discarded
			})
			checkModelSaw(t, requests)
			// Neovim 0.11+: vim.lsp.config and vim.lsp.enable, as the README shows.
			t.Run("lsp-config", func(t *testing.T) { runScript(t, nv, bin, "e2e_config.lua") })
			// Every kind of next-edit preview, and its keys.
			t.Run("next-edit-preview", func(t *testing.T) { runScript(t, nv, bin, "next_edit_preview.lua") })
			// copilot-lsp.nvim's next edits from agent-lsp, as the README sets
			// it up: given a checkout of it (not part of this repository).
			t.Run("copilot-lsp.nvim", func(t *testing.T) {
				checkout := os.Getenv("COPILOT_LSP_NVIM")
				if checkout == "" {
					t.Skip("COPILOT_LSP_NVIM names no checkout of github.com/copilotlsp-nvim/copilot-lsp")
				}
				runScript(t, nv, bin, "e2e_copilot_lsp.lua", checkout)
			})
		})
	}
}

// helloPy is the workspace's one file, as on disk.
const helloPy = "def greet():\n    return \"🐍 Hello, World!\"\n"

// neovims are the host's nvim and one per chroot of AGENT_LSP_NVIM_CHROOT
// (a path list; default defaultChroots), each with why it is missing when
// it is: the test skips that one, or fails in CI (CI set).
func neovims() []neovim {
	host := neovim{name: "host"}
	if nvim, err := exec.LookPath("nvim"); err == nil {
		host.argv = []string{nvim}
	} else {
		host.missing = "no nvim on PATH (apt-get install -y neovim)"
	}
	out := []neovim{host}
	chroots := os.Getenv("AGENT_LSP_NVIM_CHROOT")
	if chroots == "" {
		chroots = defaultChroots
	}
	for _, dir := range filepath.SplitList(chroots) {
		nv := neovim{name: "chroot-" + filepath.Base(dir), base: dir, argv: []string{"chroot", dir, "/usr/bin/nvim"}}
		if os.Geteuid() != 0 {
			nv.argv = append([]string{"unshare", "--map-root-user"}, nv.argv...)
		}
		if _, err := os.Stat(filepath.Join(dir, "usr", "bin", "nvim")); err != nil {
			nv.missing = fmt.Sprintf("no Neovim in the chroot %s (%v): .ci/run builds it with debootstrap", dir, err)
		}
		out = append(out, nv)
	}
	return out
}

// runScript runs test/<script> on nv with a fresh workspace, model server
// and copy of the binary and the plugin (and of copilotLsp, a checkout of
// copilot-lsp.nvim, when given); it returns the workspace's root (on the
// host) and what the model was sent. A script that writes "skip: why"
// skips the test.
func runScript(t *testing.T, nv neovim, bin, script string, copilotLsp ...string) (string, []map[string]any) {
	dir := t.TempDir()
	if nv.base != "" {
		var err error
		if dir, err = os.MkdirTemp(filepath.Join(nv.base, "tmp"), "agent-lsp-e2e-"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	inside := func(path string) string { return strings.TrimPrefix(path, nv.base) }
	for _, d := range []string{"plugin", "root/.git", "tmp", "config", "cache", "state", "data"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, bin, filepath.Join(dir, "agent-lsp"), 0o755)
	for _, f := range []string{"lua/agent_lsp/init.lua", "lua/agent_lsp/health.lua", "lua/agent_lsp/next_edit.lua", "lsp/agent_lsp.lua", "test/harness.lua", "test/" + script} {
		copyFile(t, f, filepath.Join(dir, "plugin", f), 0o644)
	}
	for _, from := range copilotLsp {
		copyTree(t, from, filepath.Join(dir, "copilot-lsp"))
	}
	root := filepath.Join(dir, "root")
	if err := os.WriteFile(filepath.Join(root, "hello.py"), []byte(helloPy), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewOpenAIResponder(t, scriptedModel(t))
	result := filepath.Join(dir, "result")
	plugin := inside(filepath.Join(dir, "plugin"))
	// The script quits itself, maybe later from the main loop (where typed
	// keys fire TextChanged); one that fails to load or run quits with 3.
	run := fmt.Sprintf("lua local ok, err = pcall(dofile, %q) if not ok then io.stderr:write(tostring(err)) vim.cmd('cquit 3') end", plugin+"/test/"+script)
	args := slices.Concat(nv.argv[1:], []string{"--headless", "-u", "NONE", "-i", "NONE", "-n",
		"--cmd", "set rtp^=" + plugin, "-c", run})
	cmd := exec.Command(nv.argv[0], args...)
	cmd.Env = append(os.Environ(), "AGENT_LSP_BIN="+inside(filepath.Join(dir, "agent-lsp")), "WORKSPACE="+inside(root), "RESULT="+inside(result),
		"AGENT_LSP_MODEL=gpt-test", "AGENT_LSP_COMPLETION_MODEL=coder-1b", "OPENAI_BASE_URL="+srv.URL+"/v1", "TMPDIR="+inside(filepath.Join(dir, "tmp")), "COPILOT_LSP_RTP="+inside(filepath.Join(dir, "copilot-lsp")),
		"XDG_CONFIG_HOME="+inside(filepath.Join(dir, "config")), "XDG_CACHE_HOME="+inside(filepath.Join(dir, "cache")),
		"XDG_STATE_HOME="+inside(filepath.Join(dir, "state")), "XDG_DATA_HOME="+inside(filepath.Join(dir, "data")))
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
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("nvim did not finish\n%s", out)
	}
	if version, err := exec.Command(nv.argv[0], slices.Concat(nv.argv[1:], []string{"--version"})...).Output(); err == nil {
		t.Logf("%s", strings.SplitN(string(version), "\n", 2)[0])
	}
	got, err := os.ReadFile(result)
	if why, ok := strings.CutPrefix(string(got), "skip: "); ok {
		t.Skip(why)
	}
	if err != nil || string(got) != "ok" {
		t.Fatalf("%s: %s %v\nnvim output:\n%s", script, got, err, out)
	}
	return root, srv.Requests()
}

// scriptedModel answers each run by its task (the last user message) and
// its step in it (the tool results since), and the completion request.
func scriptedModel(t *testing.T) func(map[string]any) llmtest.Turn {
	write := func(path, content string) llmtest.Turn {
		return llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: fmt.Sprintf(`{"path":%q,"content":%q}`, path, content)}}}
	}
	scripts := []struct {
		task  string
		turns []llmtest.Turn
	}{
		{"change the greeting", []llmtest.Turn{
			{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"hello.py"}`}}},
			{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"hello.py","old_string":"Hello, World!","new_string":"Hello, agent!"}`}}},
			{Text: "Changed the greeting."},
		}},
		{"explain the greeting", []llmtest.Turn{{Text: "It greets."}}},
		{"wait for cancel", []llmtest.Turn{{Delay: 10 * time.Minute, Text: "Too late."}}},
		{"make notes", []llmtest.Turn{write("notes.txt", "a\nb\n"), {Text: "Wrote notes."}}},
		{"make todo", []llmtest.Turn{write("todo.txt", "x\n"), {Text: "Wrote todo."}}},
		{"after the bypass", []llmtest.Turn{{Text: "Accepted."}}},
		{"make readme", []llmtest.Turn{write("readme.txt", "r\n"), {Text: "Wrote readme."}}},
		{"Fix this problem: greet is never called", []llmtest.Turn{{Text: "Nothing to fix."}}},
		{"unwaited question", []llmtest.Turn{{Text: "Unwaited answer."}}},
	}
	return func(body map[string]any) llmtest.Turn {
		if region, ok := servertest.NextEditRegion(body); ok {
			// The rename of welcome's parameter is finished at its use;
			// anything else is left as it is (no edit).
			if strings.Contains(region, "def welcome(guest):") {
				region = strings.ReplaceAll(region, "+ name", "+ guest")
			}
			if !strings.HasSuffix(region, "\n") {
				region += "\n"
			}
			return llmtest.Turn{Text: "```python\n" + region + "```\n"}
		}
		if _, fim := body["prompt"]; fim {
			return llmtest.Turn{Text: "nt(greet())\n"}
		}
		task, step := llmtest.CurrentTask(body, "tool")
		for _, s := range scripts {
			if strings.Contains(task, s.task) && step < len(s.turns) {
				return s.turns[step]
			}
		}
		t.Errorf("the model was asked an unscripted step %d of %q", step, task)
		return llmtest.Turn{Text: "unscripted"}
	}
}

func checkModelSaw(t *testing.T, requests []map[string]any) {
	t.Helper()
	var sawUnsaved, sawFix, sawAsk, sawFIM, sawRename bool
	for _, body := range requests {
		if region, ok := servertest.NextEditRegion(body); ok {
			sawRename = sawRename || strings.Contains(region, "def welcome(guest):\n    return \"Welcome, \" + name")
			continue
		}
		if prompt, ok := body["prompt"].(string); ok {
			sawFIM = sawFIM || (body["model"] == "coder-1b" && strings.HasSuffix(prompt, "Hello, agent!\"\npri"))
			continue
		}
		task, _ := llmtest.CurrentTask(body, "tool")
		sawAsk = sawAsk || strings.HasPrefix(agentrun.UserWords(task), "explain the greeting")
		sawFix = sawFix || strings.Contains(task, "Diagnostics:\n- line 2: greet is never called")
		for _, m := range body["messages"].([]any) {
			if m := m.(map[string]any); m["role"] == "tool" {
				content, _ := m["content"].(string)
				sawUnsaved = sawUnsaved || strings.Contains(content, "# 🐍 greetings, unsaved")
			}
		}
	}
	if !sawUnsaved {
		t.Error("the agent did not read the unsaved buffer")
	}
	if !sawAsk {
		t.Error("the menu's Ask agent… did not send the prompt typed in the box")
	}
	if !sawFix {
		t.Error("Fix with agent did not send the other source's diagnostic")
	}
	if !sawRename {
		t.Error("no next-edit request after the parameter's rename")
	}
	if !sawFIM {
		t.Error("no completion request for the line typed")
	}
}

// checkDisk compares files under root with want (nil: absent).
func checkDisk(t *testing.T, root string, want map[string]*string) {
	t.Helper()
	for name, content := range want {
		data, err := os.ReadFile(filepath.Join(root, name))
		switch {
		case content == nil && err == nil:
			t.Errorf("%s is on disk: %q", name, data)
		case content != nil && (err != nil || string(data) != *content):
			t.Errorf("%s on disk: %q %v, want %q", name, data, err, *content)
		}
	}
}

func ptr(s string) *string { return &s }

// copyTree copies the files under from (but .git) to to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() == ".git" {
			if err == nil {
				err = filepath.SkipDir
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(from, path)
		copyFile(t, path, filepath.Join(to, rel), 0o644)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
