package vim_test

// The coc.nvim end-to-end test: a built coc.nvim (COC_NVIM) in Vim 9 and in
// each Neovim of the chroots .ci/run builds, run in a tmux pane (coc echoes
// a message only in Normal or Insert mode, which `vim -es` never is),
// against the real agent-lsp binary and a scripted OpenAI-wire model, with
// README.md's coc-settings.json. The scenario (test/coc/flow.vim) presses
// coc's code-action mappings and calls CocAction as a user's mappings do;
// the menus and prompts coc draws (Choose action, Confirm edits, an
// approval) are answered by keys typed into the pane, as a user types.

import (
	"encoding/json"
	"fmt"
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

// cocChroots are where .ci/run builds Debian 13 (Neovim 0.10) and Debian
// testing (0.11+); coc.nvim needs Neovim 0.8, so Debian 12's 0.7.2 is left
// out.
const cocChroots = "/var/cache/agent-lsp-ci/trixie:/var/cache/agent-lsp-ci/testing"

// cocBuild is the coc.nvim under test and the node it runs on. No registry
// CI reaches has coc.nvim's runtime (npm's coc.nvim holds its typings only,
// Debian packages none), so the test runs where COC_NVIM names a built
// coc.nvim (its release branch, or master after `npm ci`: build/index.js
// beside plugin/ and autoload/) and skips elsewhere, in CI too. COC_NODE
// names node when the one on PATH is older than that coc.nvim needs.
func cocBuild(t *testing.T) (coc, node string) {
	t.Helper()
	coc = os.Getenv("COC_NVIM")
	if coc == "" {
		t.Skip("COC_NVIM names no built coc.nvim (no registry CI reaches has it: npm's coc.nvim is its typings only)")
	}
	if _, err := os.Stat(filepath.Join(coc, "build", "index.js")); err != nil {
		t.Fatalf("COC_NVIM=%s is not a built coc.nvim: %v", coc, err)
	}
	node = os.Getenv("COC_NODE")
	if node == "" {
		var err error
		if node, err = exec.LookPath("node"); err != nil {
			t.Skip("no node on PATH and no COC_NODE")
		}
	}
	return coc, node
}

// cocEditor is one Vim or Neovim to run coc.nvim in: argv starts it, in the
// chroot base ("": the host's /).
type cocEditor struct {
	name, base string
	argv       []string
	missing    string
}

func cocEditors() []cocEditor {
	vim := cocEditor{name: "vim", argv: []string{"vim", "-N"}}
	if bin, err := exec.LookPath("vim"); err != nil || exec.Command(bin, "-N", "-u", "NONE", "-i", "NONE", "-es", "-c", `if !has("job") || !has("patch-9.0.0438") | cquit | endif`, "-c", "qa!").Run() != nil {
		vim.missing = "no Vim 9.0.0438+ with +job (apt-get install -y vim-nox)"
	}
	editors := []cocEditor{vim}
	chroots := os.Getenv("AGENT_LSP_NVIM_CHROOT")
	if chroots == "" {
		chroots = cocChroots
	}
	for _, dir := range filepath.SplitList(chroots) {
		// The sandbox runs the agent's commands through /proc/self/exe: the
		// chroot gets a /proc of its own, in a mount namespace that goes with it.
		nv := cocEditor{name: "nvim-" + filepath.Base(dir), base: dir,
			argv: []string{"unshare", "--mount", "--pid", "--fork", "--mount-proc=" + filepath.Join(dir, "proc")}}
		if os.Geteuid() != 0 {
			nv.argv = append(nv.argv, "--map-root-user")
		}
		nv.argv = append(nv.argv, "chroot", dir, "/usr/bin/nvim")
		if _, err := os.Stat(filepath.Join(dir, "usr", "bin", "nvim")); err != nil {
			nv.missing = fmt.Sprintf("no Neovim in the chroot %s: .ci/run builds it with debootstrap", dir)
		}
		editors = append(editors, nv)
	}
	return editors
}

// TestCoc: in coc.nvim, the "Ask agent…" code action inserts an AGENT:
// comment; the user types the request and runs "Agent: …"; the answer opens
// as a document; coc asks "Confirm edits" for the proposal, No leaves it
// pending; "Apply agent proposal" sends it again, Yes edits the buffer (an
// emoji and CJK kept) and creates the new file (its text exact); :wall
// saves it; agent.status runs as a workspace command
// (CocAction('runCommand')) and says it is applied, and agent.ask too,
// whose run asks to run a command: coc's prompt, answered "Allow once",
// runs it and its output reaches the model.
func TestCoc(t *testing.T) {
	coc, node := cocBuild(t)
	for _, ed := range cocEditors() {
		t.Run(ed.name, func(t *testing.T) {
			if ed.missing != "" {
				if os.Getenv("CI") != "" {
					t.Fatal(ed.missing + " (in CI, .ci/run must provide it)")
				}
				t.Skip(ed.missing)
			}
			model := llmtest.NewOpenAIResponder(t, cocModel(t))
			s := runCoc(t, ed, coc, node, model)
			checkCoc(t, s, model.Requests())
		})
	}
}

const cocHello = "def greet():\n    return \"🐍 Hello, World!\"\n"

// cocModel answers each run by its task and its step in it.
func cocModel(t *testing.T) func(map[string]any) llmtest.Turn {
	scripts := map[string][]llmtest.Turn{
		"change the greeting": {
			{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"hello.py"}`}}},
			{Calls: []llmtest.Call{
				{Name: "edit_file", Args: `{"path":"hello.py","old_string":"    # AGENT: change the greeting\n    return \"🐍 Hello, World!\"","new_string":"    return \"🐍 Hello, agent! 你好\""}`},
				{Name: "write_file", Args: `{"path":"notes/new.txt","content":"Say hello 🐍.\nTwice.\n"}`},
			}},
			{Text: "Changed the greeting."},
		},
		"print the greeting": {
			{Calls: []llmtest.Call{{Name: "execute_command", Args: `{"command":"printf made-by-agent"}`}}},
			{Text: "Printed it."},
		},
	}
	return func(body map[string]any) llmtest.Turn {
		task, step := llmtest.CurrentTask(body, "assistant")
		for name, turns := range scripts {
			if strings.Contains(task, name) && step < len(turns) {
				return turns[step]
			}
		}
		t.Errorf("the model was asked an unscripted step %d of %q", step, task)
		return llmtest.Turn{Text: "unscripted"}
	}
}

func checkCoc(t *testing.T, s session, reqs []map[string]any) {
	t.Helper()
	unsaved := "# greetings, unsaved\ndef greet():\n    # AGENT: change the greeting\n    return \"🐍 Hello, World!\"\n"
	if got := s.read("before"); got != unsaved {
		t.Errorf("buffer before the apply:\n%s\nwant:\n%s", got, unsaved)
	}
	want := "# greetings, unsaved\ndef greet():\n    return \"🐍 Hello, agent! 你好\"\n"
	if got := s.read("applied"); got != want {
		t.Errorf("buffer after the apply:\n%s\nwant:\n%s", got, want)
	}
	if data, _ := os.ReadFile(filepath.Join(s.root, "hello.py")); string(data) != want {
		t.Errorf("hello.py on disk after :wall: %q, want %q", data, want)
	}
	if data, _ := os.ReadFile(filepath.Join(s.root, "notes", "new.txt")); string(data) != "Say hello 🐍.\nTwice.\n" {
		t.Errorf("notes/new.txt on disk after :wall: %q", data)
	}
	// What coc drew for each choice: the code actions' menu, Confirm edits
	// naming the proposal, and the approval naming the command.
	prompts := strings.Split(s.read("prompts"), "\n--\n")
	for i, w := range []string{"Choose action", "Choose action", "Confirm edits", "Choose action", "Confirm edits", "wants to run"} {
		if i >= len(prompts) || !strings.Contains(prompts[i], w) {
			t.Errorf("prompt %d is not %q:\n%s", i+1, w, s.read("prompts"))
			break
		}
	}
	for _, w := range []string{"agent-lsp: change the greeting", "1. Yes", "Apply agent proposal (2 file(s), proposal-1)", "printf made-by-agent", "(2)Allow once"} {
		if !strings.Contains(s.read("prompts"), w) {
			t.Errorf("no prompt showed %q:\n%s", w, s.read("prompts"))
		}
	}
	if got := s.read("refused"); got != "pending\n" {
		t.Errorf("proposal-1 after No to coc's Confirm edits: %q, want pending", got)
	}
	// The answers open as documents (window/showDocument), with the diff.
	docs := s.read("documents")
	for _, w := range []string{"Changed the greeting.", "+    return \"🐍 Hello, agent! 你好\"", "Printed it."} {
		if !strings.Contains(docs, w) {
			t.Errorf("no document coc opened holds %q:\n%s", w, docs)
		}
	}
	var status struct {
		Runs []struct {
			ID string `json:"id"`
		} `json:"runs"`
		Proposals []struct {
			ID    string `json:"id"`
			State string `json:"state"`
		} `json:"proposals"`
	}
	if err := json.Unmarshal([]byte(s.read("status")), &status); err != nil || len(status.Runs) != 1 || len(status.Proposals) != 1 || status.Proposals[0].State != "applied" {
		t.Errorf("agent.status through CocAction('runCommand'): %q %v", s.read("status"), err)
	}
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	if m := reqs[0]["model"]; m != "gpt-4o-mini" {
		t.Errorf("model %v, want README's initializationOptions gpt-4o-mini", m)
	}
	if read := toolResults(reqs[1]); !strings.Contains(read, "# greetings, unsaved") {
		t.Errorf("read_file did not see the unsaved buffer: %q", read)
	}
	if out := toolResults(reqs[4]); !strings.Contains(out, "made-by-agent\n") || !strings.Contains(out, "[exit code: 0]") {
		t.Errorf("the approved command's output did not reach the model: %q", out)
	}
}

// runCoc runs test/coc/flow.vim in ed, in a tmux pane, with a fresh
// workspace, config and data dirs, and answers coc's prompts; it fails the
// test unless the scenario ends "ok".
func runCoc(t *testing.T, ed cocEditor, coc, node string, model *llmtest.Server) session {
	t.Helper()
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no tmux: .ci/run must install it")
		}
		t.Skip("no tmux (apt-get install -y tmux)")
	}
	dir := t.TempDir()
	if ed.base != "" {
		if dir, err = os.MkdirTemp(filepath.Join(ed.base, "tmp"), "agent-lsp-coc-"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	inside := func(path string) string { return strings.TrimPrefix(path, ed.base) }
	for _, d := range []string{"bin", "root/.git", "out", "home", "coc-config", "coc-data", "tmp", "config", "cache", "state", "data"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	linkOrCopy(t, servertest.Binary(t), filepath.Join(dir, "bin", "agent-lsp"))
	linkOrCopy(t, node, filepath.Join(dir, "bin", "node"))
	for _, sub := range []string{"autoload", "bin", "build", "lua", "plugin", "package.json"} {
		copyTree(t, filepath.Join(coc, sub), filepath.Join(dir, "coc", sub))
	}
	for _, f := range []string{"lib.vim", "flow.vim"} {
		copyTree(t, filepath.Join("test", "coc", f), filepath.Join(dir, "scenario", f))
	}
	root := filepath.Join(dir, "root")
	if err := os.WriteFile(filepath.Join(root, "hello.py"), []byte(cocHello), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "coc-config", "coc-settings.json"), []byte(readmeCocSettings(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	vimrc := fmt.Sprintf("set nocompatible\nset runtimepath^=%s\nlet g:coc_node_path = %q\nlet g:coc_config_home = %q\nlet g:coc_data_home = %q\nfiletype plugin on\nset hidden\n",
		inside(filepath.Join(dir, "coc")), inside(filepath.Join(dir, "bin", "node")),
		inside(filepath.Join(dir, "coc-config")), inside(filepath.Join(dir, "coc-data")))
	if err := os.WriteFile(filepath.Join(dir, "vimrc"), []byte(vimrc), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + inside(filepath.Join(dir, "home")), "PATH=" + inside(filepath.Join(dir, "bin")) + ":/usr/bin:/bin",
		"TERM=xterm-256color", "LANG=C.UTF-8", "TMPDIR=" + inside(filepath.Join(dir, "tmp")),
		"OUT=" + inside(filepath.Join(dir, "out")), "WORKSPACE=" + inside(root),
		"NVIM_COC_LOG_FILE=" + inside(filepath.Join(dir, "out", "coc.log")), "NVIM_COC_LOG_LEVEL=debug",
		"AGENT_LSP_MODEL=gpt-test", "OPENAI_BASE_URL=" + model.URL + "/v1",
		"XDG_CONFIG_HOME=" + inside(filepath.Join(dir, "config")), "XDG_CACHE_HOME=" + inside(filepath.Join(dir, "cache")),
		"XDG_STATE_HOME=" + inside(filepath.Join(dir, "state")), "XDG_DATA_HOME=" + inside(filepath.Join(dir, "data"))}
	// The scenario starts once the editor has entered (VimEnter), as coc does.
	start := "autocmd VimEnter * ++nested source " + inside(filepath.Join(dir, "scenario", "flow.vim"))
	argv := slices.Concat(ed.argv, []string{"-u", inside(filepath.Join(dir, "vimrc")), "-i", "NONE", "-n", "-c", start})
	if ed.base != "" {
		// env -i inside the chroot: the host's PATH means nothing there.
		argv = slices.Concat(ed.argv[:len(ed.argv)-1], []string{"/usr/bin/env", "-i"}, env, argv[len(ed.argv)-1:])
	}
	// A pane whose editor died stays, saying how.
	os.WriteFile(filepath.Join(dir, "tmux.conf"), []byte("set -g remain-on-exit on\n"), 0o644)
	tmux := []string{"-S", filepath.Join(dir, "tmux.sock"), "-f", filepath.Join(dir, "tmux.conf")}
	cmd := exec.Command(tmuxBin, slices.Concat(tmux, []string{"new-session", "-d", "-s", "coc", "-x", "160", "-y", "45"}, argv)...)
	cmd.Env = os.Environ()
	if ed.base == "" {
		cmd.Env = append(cmd.Env, env...) // the last of a name wins
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		exec.Command(tmuxBin, slices.Concat(tmux, []string{"kill-server"})...).Run()
		// coc's node outlives the editor a moment, writing its log.
		for range 50 {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("%s is left: %v", dir, os.RemoveAll(dir))
	})
	capture := func() string {
		out, _ := exec.Command(tmuxBin, slices.Concat(tmux, []string{"capture-pane", "-p", "-t", "coc"})...).Output()
		return string(out)
	}

	s := session{out: filepath.Join(dir, "out"), root: root}
	began := time.Now()
	var prompts []string    // the pane as each choice was typed
	var menuSince time.Time // since when a menu lacking the choice is shown
	for s.read("result") == "" {
		if time.Since(began) > 60*time.Second {
			t.Fatalf("the scenario did not end (%q); the pane:\n%s\ncoc's log (end):\n%s", argv, capture(), tail(s.read("coc.log"), 6000))
		}
		screen := capture()
		if title := strings.TrimSpace(s.read("pick")); title != "" {
			if n := choiceNumber(screen, title); n != "" {
				exec.Command(tmuxBin, slices.Concat(tmux, []string{"send-keys", "-t", "coc", n})...).Run()
				os.Remove(filepath.Join(s.out, "pick"))
				prompts = append(prompts, screen)
				menuSince = time.Time{}
			} else if !strings.Contains(screen, "Choose action") {
				menuSince = time.Time{}
			} else if menuSince.IsZero() {
				menuSince = time.Now()
			} else if time.Since(menuSince) > 5*time.Second {
				// The menu waits for a key, and the scenario with it.
				t.Fatalf("coc's menu lacks %q:\n%s", title, screen)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.took = time.Since(began)
	os.WriteFile(filepath.Join(s.out, "prompts"), []byte(strings.Join(prompts, "\n--\n")), 0o644)
	t.Logf("%s: the scenario took %s", ed.name, s.took)
	if s.read("result") != "ok\n" {
		t.Fatalf("flow.vim: %q\nmessages:\n%s\nthe pane:\n%s\ncoc's log (end):\n%s", s.read("result"), s.read("messages"), capture(), tail(s.read("coc.log"), 6000))
	}
	return s
}

// choiceNumber is the number the pane shows before the choice that starts
// with title, or "": in coc's menus "2. Title", in Vim's confirm() "(2)Title".
func choiceNumber(screen, title string) string {
	choice := regexp.MustCompile(`(?:(\d+)\. |\((\d+)\))` + regexp.QuoteMeta(title))
	if m := choice.FindStringSubmatch(screen); m != nil {
		return m[1] + m[2]
	}
	return ""
}

// readmeCocSettings is the coc-settings.json README.md gives.
func readmeCocSettings(t *testing.T) string {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		if strings.Contains(m[1], `"languageserver"`) {
			return m[1]
		}
	}
	t.Fatal("README.md has no coc-settings.json with languageserver")
	return ""
}

// linkOrCopy hard-links from to to (a chroot's tmp is on the same file
// system here), or copies it.
func linkOrCopy(t *testing.T, from, to string) {
	t.Helper()
	if resolved, err := filepath.EvalSymlinks(from); err == nil {
		from = resolved
	}
	if os.Link(from, to) == nil {
		return
	}
	info, err := os.Stat(from)
	if err != nil {
		t.Fatal(err)
	}
	copyTree(t, from, to)
	os.Chmod(to, info.Mode())
}

// copyTree copies the file or the tree from to to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
