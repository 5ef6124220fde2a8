// Package vim_test runs Vim 9 with Debian's ALE 3.3 headless (vim -es)
// against the real agent-lsp binary and a scripted OpenAI-wire model server,
// set up with the vimrc in README.md. Each scenario in test/ does what a
// user does (:ALECodeAction and its numbered prompt, typing, :w) and
// records what Vim showed; the tests judge that, the disk and what the
// model was sent.
package vim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// vim returns the vim binary, skipping the test where Vim (with jobs) or
// ALE is missing (CI installs both, so there it fails instead).
func vim(t *testing.T) string {
	t.Helper()
	missing := func(what string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s missing: .ci/run must install Debian's vim-nox and vim-ale", what)
		}
		t.Skipf("no %s (apt-get install -y vim-nox vim-ale)", what)
	}
	bin, err := exec.LookPath("vim")
	if err != nil {
		missing("vim")
	}
	if exec.Command(bin, "-N", "-u", "NONE", "-i", "NONE", "-es", "-c", `if !has("job") | cquit | endif`, "-c", "qa!").Run() != nil {
		missing("vim with +job (vim-nox)")
	}
	if exec.Command(bin, "-N", "-u", "NONE", "-i", "NONE", "-es", "-c", "packadd ale", "-c", `if !exists(":ALECodeAction") | cquit | endif`, "-c", "qa!").Run() != nil {
		missing("ALE (packadd ale)")
	}
	return bin
}

// readmeVimrc is the vimrc README.md gives, with this checkout's plugin.
func readmeVimrc(t *testing.T) string {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```vim\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		if strings.Contains(m[1], "ale#linter#Define") {
			plugin, _ := filepath.Abs(".")
			return strings.ReplaceAll(m[1], "~/src/agent-lsp/editors/vim", plugin)
		}
	}
	t.Fatal("README.md has no vimrc with ale#linter#Define")
	return ""
}

// session is what a scenario left: its record (see test/lib.vim) and the
// workspace it ran in.
type session struct {
	out, root string
	took      time.Duration
}

func (s session) read(name string) string {
	data, _ := os.ReadFile(filepath.Join(s.out, name))
	return string(data)
}

// seen is everything Vim showed: the echoed lines and the preview windows.
func (s session) seen() string { return s.read("screen") + "\n" + s.read("previews") }

// run runs test/SCENARIO.vim in a workspace holding files (and .git), with
// agent-lsp talking to model, and fails the test unless it ends "ok".
func run(t *testing.T, scenario string, model *llmtest.Server, files map[string]string) session {
	t.Helper()
	return runIn(t, t.TempDir(), scenario, model, files)
}

// runIn is run with the record in dir, and env added to Vim's environment
// (overriding what run sets).
func runIn(t *testing.T, dir, scenario string, model *llmtest.Server, files map[string]string, env ...string) session {
	t.Helper()
	bin := vim(t)
	server := servertest.Binary(t)
	root := toolstest.WriteTree(t, files)
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	home := t.TempDir()
	vimrc := filepath.Join(home, "vimrc")
	if err := os.WriteFile(vimrc, []byte(readmeVimrc(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	s := session{out: dir, root: root}
	script, _ := filepath.Abs(filepath.Join("test", scenario+".vim"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-N", "-u", vimrc, "-i", "NONE", "-n", "-es", "-S", script)
	cmd.Env = append(os.Environ(), "HOME="+home, "PATH="+filepath.Dir(server)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"OUT="+s.out, "WORKSPACE="+root,
		"AGENT_LSP_MODEL=gpt-test", "OPENAI_BASE_URL="+model.URL+"/v1",
		"XDG_CONFIG_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(),
		"XDG_STATE_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
	cmd.Env = append(cmd.Env, env...) // the last of a name wins
	start := time.Now()
	out, err := cmd.CombinedOutput()
	s.took = time.Since(start)
	if ctx.Err() != nil || err != nil || s.read("result") != "ok\n" {
		t.Fatalf("%s.vim: %q (vim: %v, %s)\nscreen:\n%s\npreviews:\n%s\nvim output:\n%s",
			scenario, s.read("result"), err, s.took, s.read("screen"), s.read("previews"), out)
	}
	return s
}

// TestAskApply: the "Ask agent…" code action inserts an AGENT: comment, the
// user types the request and picks "Agent: …"; the answer is shown; "Show
// agent proposal" names the diff; the proposal's code action edits the
// buffers (one of a file that was not open) and brings the new file's text
// to a buffer of its own, :wall saves them, and the server says the
// proposal is applied.
func TestAskApply(t *testing.T) {
	t.Parallel()
	onDisk := "def greet():\n    return \"🐍 Hello, World!\"\n"
	model := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"hello.py"}`}}},
		// The model thinks a while before its edits: the step is shown.
		llmtest.Turn{Delay: 2500 * time.Millisecond, Calls: []llmtest.Call{
			{Name: "edit_file", Args: `{"path":"hello.py","old_string":"    # AGENT: change the greeting\n    return \"🐍 Hello, World!\"","new_string":"    return \"🐍 Hello, agent!\""}`},
			{Name: "edit_file", Args: `{"path":"docs/greeting.txt","old_string":"World","new_string":"agent"}`},
			{Name: "write_file", Args: `{"path":"new/notes.txt","content":"Say hello.\n"}`},
		}},
		llmtest.Turn{Text: "Changed the greeting."},
	)
	s := run(t, "ask_apply", model, map[string]string{"hello.py": onDisk, "docs/greeting.txt": "It says Hello, World!\n"})

	unsaved := "# greetings, unsaved\ndef greet():\n    # AGENT: change the greeting\n    return \"🐍 Hello, World!\"\n"
	if got := s.read("before"); got != unsaved {
		t.Errorf("buffer before the apply:\n%s\nwant:\n%s", got, unsaved)
	}
	want := "# greetings, unsaved\ndef greet():\n    return \"🐍 Hello, agent!\"\n"
	if got := s.read("applied"); got != want {
		t.Errorf("buffer after the apply:\n%s\nwant:\n%s", got, want)
	}
	if data, _ := os.ReadFile(filepath.Join(s.root, "hello.py")); string(data) != want {
		t.Errorf("on disk after :wall: %q, want %q", data, want)
	}
	// A file that was not open: ALE opens it to edit it (the vimrc's
	// 'hidden' lets it leave the unsaved buffer).
	if data, _ := os.ReadFile(filepath.Join(s.root, "docs", "greeting.txt")); string(data) != "It says Hello, agent!\n" {
		t.Errorf("docs/greeting.txt on disk after :wall: %q", data)
	}
	// ALE cannot create files: the new one comes in a buffer, written by :wall.
	if data, _ := os.ReadFile(filepath.Join(s.root, "new", "notes.txt")); string(data) != "Say hello.\n" {
		t.Errorf("new/notes.txt on disk after :wall: %q", data)
	}
	seen := s.seen()
	for _, w := range []string{
		"Changed the greeting.", "hello.py +1 -2", "docs/greeting.txt +1 -1", "new/notes.txt +1 -0",
		"agent-lsp: run-1: Iteration 2/10 · Edit hello.py", // a step, though ALE drops the log
		"+    return \"🐍 Hello, agent!\"\n",                // "Show agent proposal": the diff itself
		"proposal-1 is applied",
	} {
		if !strings.Contains(seen, w) {
			t.Errorf("Vim never showed %q:\n%s", w, seen)
		}
	}
	// "Show agent proposal" names the diff's file, for :pedit.
	if m := regexp.MustCompile(`The whole diff: (\S+\.diff)`).FindStringSubmatch(seen); m == nil {
		t.Errorf("no diff file shown:\n%s", seen)
	} else if diff, _ := os.ReadFile(m[1]); !strings.Contains(string(diff), "+    return \"🐍 Hello, agent!\"") {
		t.Errorf("the diff file %s lacks the change:\n%s", m[1], diff)
	}

	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	if task := llmtest.FirstUserText(reqs[0]); !strings.Contains(task, "change the greeting") {
		t.Errorf("the task does not hold the request: %q", task)
	}
	if read := toolResults(reqs[1]); !strings.Contains(read, "# greetings, unsaved") {
		t.Errorf("read_file did not see the unsaved buffer: %q", read)
	}
	if m := reqs[0]["model"]; m != "gpt-4o-mini" {
		t.Errorf("model %v, want the vimrc's initialization_options gpt-4o-mini", m)
	}
}

// TestExplain: "Explain with agent" answers in a message and offers the
// model no tool that writes or runs; :AgentCommand shows agent.status.
func TestExplain(t *testing.T) {
	t.Parallel()
	model := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "It returns a greeting."})
	s := run(t, "explain", model, map[string]string{"hello.py": "def greet():\n    return \"Hello, World!\"\n"})

	seen := s.seen()
	if !strings.Contains(seen, "It returns a greeting.") {
		t.Errorf("Vim never showed the answer:\n%s", seen)
	}
	if !regexp.MustCompile(`agent\.status: \{.*"runs"`).MatchString(s.read("screen")) {
		t.Errorf(":AgentCommand agent.status echoed no status:\n%s", s.read("screen"))
	}
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	tools := toolNames(reqs[0])
	if !slices.Contains(tools, "read_file") {
		t.Errorf("the model was offered no read_file: %v", tools)
	}
	for _, w := range []string{"edit_file", "write_file", "execute_command", "remember"} {
		if slices.Contains(tools, w) {
			t.Errorf("explaining offered the model %s: %v", w, tools)
		}
	}
	if task := llmtest.FirstUserText(reqs[0]); !strings.Contains(task, "Explain what this code does") {
		t.Errorf("the task: %q", task)
	}
}

// TestApproval: the agent wants to run printf, which is off the allowlist;
// a message says so and where to answer; "Allow once: …" from
// :ALECodeAction runs it, and its output reaches the model.
func TestApproval(t *testing.T) {
	t.Parallel()
	model := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "execute_command", Args: `{"command":"printf made-by-agent"}`}}},
		llmtest.Turn{Text: "Printed it."},
	)
	s := run(t, "approve", model, map[string]string{"hello.py": "print('hi')\n"})

	seen := s.seen()
	for _, w := range []string{
		"agent-lsp: run-1 started; its answer comes as a message", // :AgentAsk's echo
		"run-1 wants to run:\nprintf made-by-agent",
		`Pick "Deny", "Allow once" or "Always allow in this workspace" from the code actions`,
		"1) Deny: printf made-by-agent (run-1)", // :ALECodeAction's prompt, Deny first
		"Printed it.",
		"agent.approve: agent-lsp: no question approval-1 is waiting", // :AgentCommand's echo of the server's error
	} {
		if !strings.Contains(seen, w) {
			t.Errorf("Vim never showed %q:\n%s", w, seen)
		}
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if task := llmtest.FirstUserText(reqs[0]); !strings.Contains(task, "print the greeting") {
		t.Errorf("the task: %q", task)
	}
	if out := toolResults(reqs[1]); !strings.HasPrefix(out, "made-by-agent\n[exit code: 0]") {
		t.Errorf("the command's output did not reach the model: %q", out)
	}
}

// TestCancel: the model is slow (30 s); "Cancel agent run" ends the run at
// once, and the model's request is abandoned.
func TestCancel(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	model := llmtest.NewOpenAIResponder(t, func(map[string]any) llmtest.Turn {
		os.WriteFile(filepath.Join(out, "model-asked"), nil, 0o644) // cancel.vim waits for it
		return llmtest.Turn{Delay: 30 * time.Second, Text: "too late"}
	})
	s := runIn(t, out, "cancel", model, map[string]string{"hello.py": "print('hi')\n"})

	if ms, _ := strconv.Atoi(strings.TrimSpace(s.read("cancel_ms"))); ms > 10000 {
		t.Errorf("the run ended %d ms after the cancel", ms)
	}
	if s.took > 25*time.Second {
		t.Errorf("the scenario took %s: the cancel did not end the 30 s model turn", s.took)
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("%d model requests, want the one cancelled", n)
	}
	toolstest.Poll(t, "the model request abandoned", func() bool { return model.Abandoned() == 1 })
	if seen := s.seen(); strings.Contains(seen, "too late") {
		t.Errorf("the cancelled run's answer was shown:\n%s", seen)
	}
}

// TestNextEdit: with a next-edit model in the user's config.toml, the user
// renames greet's parameter; after ALE sends the change the server asks the
// scripted model in the background, and :ALECodeAction on the use's line
// offers "Apply suggested edit: who", which renames the use in the buffer;
// agent.status counts it accepted. Only here are next edits on: elsewhere
// the server would ask the model after every change.
func TestNextEdit(t *testing.T) {
	t.Parallel()
	const nesModel = "nes-vim"
	param := regexp.MustCompile(`def greet\((\w+)\)`)
	uses := regexp.MustCompile(`\b(name|who)\b`)
	// region is the editable region of a next-edit request (the whole
	// small file), or "".
	region := func(body map[string]any) string {
		if region, ok := servertest.NextEditRegion(body); ok && body["model"] == nesModel {
			return region
		}
		return ""
	}
	model := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		region := region(body)
		if region == "" {
			return llmtest.Turn{Text: "not a next-edit request"}
		}
		// The region, renamed throughout.
		m := param.FindStringSubmatch(region)
		if m == nil {
			return llmtest.Turn{Text: "no parameter"}
		}
		return llmtest.Turn{Text: "```python\n" + uses.ReplaceAllString(region, m[1]) + "```\n"}
	})
	config := t.TempDir()
	toml := fmt.Sprintf("[nes]\nmodel = %q\nbase_url = %q\ndebounce_ms = 10\n", nesModel, model.URL+"/v1")
	os.MkdirAll(filepath.Join(config, "agent-lsp"), 0o755)
	if err := os.WriteFile(filepath.Join(config, "agent-lsp", "config.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	// An emoji before the use: ALE reads columns as bytes; the suggestion
	// replaces whole lines, so it lands right.
	onDisk := "def greet(name):\n    return \"🐍 Hello, \" + name\n"
	s := runIn(t, t.TempDir(), "next_edit", model, map[string]string{"hello.py": onDisk}, "XDG_CONFIG_HOME="+config)

	if got, want := s.read("renamed"), "def greet(who):\n    return \"🐍 Hello, \" + name\n"; got != want {
		t.Errorf("buffer after the rename:\n%s\nwant:\n%s", got, want)
	}
	if titles := s.read("titles"); !slices.Contains(strings.Split(titles, "\n"), "Apply suggested edit: who") {
		t.Errorf("line 2's code actions lack \"Apply suggested edit: who\":\n%s", titles)
	}
	if got, want := s.read("applied"), "def greet(who):\n    return \"🐍 Hello, \" + who\n"; got != want {
		t.Errorf("buffer after the pick:\n%s\nwant:\n%s", got, want)
	}
	var status struct {
		Model    string `json:"model"`
		Calls    int    `json:"calls"`
		Accepted int    `json:"accepted"`
	}
	if err := json.Unmarshal([]byte(s.read("status")), &status); err != nil {
		t.Fatalf("agent.status nextEdits %q: %v", s.read("status"), err)
	}
	if !strings.Contains(status.Model, nesModel) || status.Calls == 0 || status.Accepted != 1 {
		t.Errorf("agent.status nextEdits %+v, want %s with 1 accepted", status, nesModel)
	}
	// Each model request a next-edit one, the first after the rename.
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	for i, r := range reqs {
		if got := region(r); !strings.Contains(got, "def greet(who)") {
			t.Errorf("model request %d is no next-edit request after the rename: region %q", i+1, got)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(s.root, "hello.py")); string(data) != onDisk {
		t.Errorf("disk changed: %q", data)
	}
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

// toolNames are the tools a request offered the model.
func toolNames(body map[string]any) []string {
	var names []string
	tools, _ := body["tools"].([]any)
	for _, tool := range tools {
		fn, _ := tool.(map[string]any)["function"].(map[string]any)
		name, _ := fn["name"].(string)
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// TestNewFileInABuffer: a proposal edits the open file and creates one;
// ALE cannot create files, so its Apply action says the new file comes in
// a buffer, not created until written, and puts its text there.
func TestNewFileInABuffer(t *testing.T) {
	t.Parallel()
	model := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{
			{Name: "edit_file", Args: `{"path":"hello.py","old_string":"World","new_string":"agent"}`},
			{Name: "write_file", Args: `{"path":"notes.txt","content":"Say hello 🐍.\nTwice.\n"}`},
		}},
		llmtest.Turn{Text: "Added notes."},
	)
	s := run(t, "new_file", model, map[string]string{"hello.py": "print('Hello, World!')\n"})
	if got := s.read("applied"); got != "print('Hello, agent!')\n" {
		t.Errorf("buffer after the apply: %q", got)
	}
	if got := s.read("new"); got != "Say hello 🐍.\nTwice.\n" {
		t.Errorf("the new file's buffer: %q", got)
	}
	if _, err := os.Stat(filepath.Join(s.root, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("notes.txt is on disk (%v)", err)
	}
}
