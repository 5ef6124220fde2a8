package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

const helloPy = "def greet():\n    return \"Hello, World!\"\n"

func newWorkspace(t *testing.T, files map[string]string) string { return toolstest.WriteTree(t, files) }

// userConfig writes the user's own config.toml and returns the directory to
// give as XDG_CONFIG_HOME.
func userConfig(t *testing.T, toml string) string {
	dir := t.TempDir()
	toolstest.WriteFiles(t, dir, map[string]string{"agent-lsp/config.toml": toml})
	return dir
}

type result struct {
	code           int
	stdout, stderr string
}

func runCLI(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if env["XDG_CONFIG_HOME"] == "" {
		env["XDG_CONFIG_HOME"] = t.TempDir() // never the developer's own config
	}
	if env["XDG_STATE_HOME"] == "" {
		env["XDG_STATE_HOME"] = t.TempDir()
	}
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, func(k string) string { return env[k] })
	return result{code, stdout.String(), stderr.String()}
}

func TestAskSeedScenarioOpenAI(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"hello.py": helloPy, "AGENTS.md": "Always answer in one sentence.\n"})
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{ID: "call_abc123", Name: "read_file", Args: `{"path":"hello.py"}`}}},
		llmtest.Turn{Text: "hello.py defines greet(), which returns \"Hello, World!\"."},
	)
	r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "gpt-test", "OPENAI_BASE_URL": srv.URL + "/v1"},
		"ask", "--workspace", ws, "read hello.py and explain it")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if r.stdout != "hello.py defines greet(), which returns \"Hello, World!\".\n" {
		t.Fatalf("stdout %q", r.stdout)
	}
	for _, line := range []string{"[AGENT] Provider: openai:gpt-test", "[AGENT] Iteration 1/10", "[ACT] Executing tool: read_file", "[AGENT] Iteration 2/10"} {
		if !strings.Contains(r.stderr, line) {
			t.Errorf("stderr lacks %q:\n%s", line, r.stderr)
		}
	}
	msgs := srv.Requests()[1]["messages"].([]any)
	if sys := msgs[0].(map[string]any)["content"].(string); !strings.Contains(sys, "Always answer in one sentence.") {
		t.Fatalf("AGENTS.md is not in the system prompt:\n%s", sys)
	}
	if tool := msgs[3].(map[string]any); tool["tool_call_id"] != "call_abc123" || !strings.Contains(tool["content"].(string), "Hello, World!") {
		t.Fatalf("tool result: %v", tool)
	}
}

func TestAskSeedScenarioGemini(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"hello.py": helloPy})
	srv := llmtest.NewGeminiServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"hello.py"}`}}},
		llmtest.Turn{Text: "It greets the world."},
	)
	r := runCLI(t, map[string]string{"AGENT_LSP_PROVIDER": "gemini", "AGENT_LSP_MODEL": "gemini-test",
		"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": srv.URL}, "ask", "--workspace", ws, "explain hello.py")
	if r.code != 0 || r.stdout != "It greets the world.\n" {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestAskGemini3ToolLoop runs the loop that failed on its second request:
// a Gemini 3 fake issues thought signatures and refuses a request whose
// calls lack them; parallel calls, a second step, then the answer.
func TestAskGemini3ToolLoop(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"hello.py": helloPy, "main.py": "import hello\n"})
	srv := llmtest.NewGemini3Server(t,
		llmtest.Turn{Reasoning: "I should look at both files.", Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"hello.py"}`}, {Name: "read_file", Args: `{"path":"main.py"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "search", Args: `{"pattern":"greet"}`}}},
		llmtest.Turn{Text: "main.py imports hello, which greets the world."},
	)
	r := runCLI(t, map[string]string{"AGENT_LSP_PROVIDER": "gemini", "AGENT_LSP_MODEL": "gemini-3-pro-preview",
		"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": srv.URL}, "ask", "--workspace", ws, "explain the project")
	if r.code != 0 || r.stdout != "main.py imports hello, which greets the world.\n" {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "[THINK] (reasoning) I should look at both files.") || strings.Contains(r.stdout, "both files") {
		t.Fatalf("the reasoning belongs in the trace, not the answer:\n%s", r.stderr)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
	// Three calls of 5 output tokens; the first also thought 7 and hit 4 cached.
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if !regexp.MustCompile(`^\[AGENT\] Usage: [1-9]\d* input \(4 cached\), 22 output \(7 reasoning\) tokens$`).MatchString(lines[len(lines)-1]) {
		t.Fatalf("the usage line is missing or wrong:\n%s", r.stderr)
	}
}

func TestAskEditPrintsDiffAndTouchesNothing(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"hello.py": helloPy})
	turns := func() []llmtest.Turn {
		return []llmtest.Turn{
			{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"hello.py","old_string":"Hello, World!","new_string":"Hello, agent!"}`}}},
			{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"test_hello.py","content":"from hello import greet\n"}`}}},
			{Text: "Changed the greeting and added a test."},
		}
	}
	srv := llmtest.NewOpenAIServer(t, turns()...)
	env := map[string]string{"AGENT_LSP_MODEL": "m", "OPENAI_BASE_URL": srv.URL + "/v1"}
	r := runCLI(t, env, "ask", "--workspace", ws, "change the greeting")
	want := `Changed the greeting and added a test.

--- a/hello.py
+++ b/hello.py
@@ -1,2 +1,2 @@
 def greet():
-    return "Hello, World!"
+    return "Hello, agent!"
--- /dev/null
+++ b/test_hello.py
@@ -0,0 +1 @@
+from hello import greet

Tests: not run: the test files the change touches hold no test.
`
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d stdout:\n%s\nwant:\n%s\nstderr:\n%s", r.code, r.stdout, want, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "hello.py")); string(got) != helloPy {
		t.Fatal("hello.py was written without --apply")
	}
	if _, err := os.Stat(filepath.Join(ws, "test_hello.py")); err == nil {
		t.Fatal("test_hello.py was created without --apply")
	}

	srv = llmtest.NewOpenAIServer(t, turns()...)
	env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	r = runCLI(t, env, "ask", "--apply", "--workspace", ws, "change the greeting")
	if r.code != 0 {
		t.Fatalf("--apply: exit %d\n%s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "hello.py")); !strings.Contains(string(got), "Hello, agent!") {
		t.Fatalf("--apply did not write hello.py: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "test_hello.py")); string(got) != "from hello import greet\n" {
		t.Fatalf("--apply did not create test_hello.py: %q", got)
	}
}

func TestAskFailuresExitNonZeroWithOneLine(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "a"})
	r := runCLI(t, map[string]string{}, "ask", "--workspace", ws, "hi")
	if r.code != exitUsage || !strings.Contains(r.stderr, "AGENT_LSP_MODEL") {
		t.Fatalf("no model: exit %d %q", r.code, r.stderr)
	}
	r = runCLI(t, map[string]string{"AGENT_LSP_MODEL": "gpt-4o"}, "ask", "--workspace", ws, "hi")
	if r.code != exitUsage || !strings.Contains(r.stderr, "OPENAI_API_KEY") {
		t.Fatalf("no key: exit %d %q", r.code, r.stderr)
	}
	r = runCLI(t, map[string]string{"AGENT_LSP_MODEL": "m"}, "ask", "--workspace", ws)
	if r.code != exitUsage || !strings.Contains(r.stderr, "no prompt") {
		t.Fatalf("no prompt: exit %d %q", r.code, r.stderr)
	}
	var turns []llmtest.Turn
	for range 2 {
		turns = append(turns, llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}})
	}
	srv := llmtest.NewOpenAIServer(t, turns...)
	r = runCLI(t, map[string]string{"AGENT_LSP_MODEL": "m", "OPENAI_BASE_URL": srv.URL + "/v1"},
		"ask", "--workspace", ws, "--max-iterations", "2", "loop")
	last := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != exitFailed || !strings.Contains(last[len(last)-1], "stopped at the iteration cap (2 model calls)") {
		t.Fatalf("iteration cap: exit %d, last line %q", r.code, last[len(last)-1])
	}
	srv = llmtest.NewOpenAIServer(t, llmtest.Turn{Status: 401, Body: `{"error":{"message":"Incorrect API key provided"}}`})
	r = runCLI(t, map[string]string{"AGENT_LSP_MODEL": "m", "OPENAI_BASE_URL": srv.URL + "/v1"}, "ask", "--workspace", ws, "hi")
	if r.code != exitFailed || !strings.Contains(r.stderr, "unauthorized (HTTP 401)") {
		t.Fatalf("401: exit %d %q", r.code, r.stderr)
	}
}

func TestAskDeniesUnlistedCommandsWithoutATerminal(t *testing.T) {
	ws := newWorkspace(t, nil)
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "execute_command", Args: `{"command":"touch pwned"}`}}},
		llmtest.Turn{Text: "I could not run it."},
	)
	r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "m", "OPENAI_BASE_URL": srv.URL + "/v1"}, "ask", "--workspace", ws, "touch a file")
	if r.code != 0 || !strings.Contains(r.stderr, "denied touch pwned: touch pwned is not on the allowlist") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Fatal("the command ran")
	}
	tool := srv.Requests()[1]["messages"].([]any)[3].(map[string]any)
	if !strings.Contains(tool["content"].(string), "did not allow") {
		t.Fatalf("the model was not told: %v", tool)
	}
}

func TestApplyRefusesStaleFiles(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"hello.py": helloPy})
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"hello.py","old_string":"World","new_string":"agent"}`}}},
		llmtest.Turn{Text: "done"},
	)
	// The user edits the file between the agent's read and the apply: the
	// second model call is where we change it.
	env := map[string]string{"AGENT_LSP_MODEL": "m", "OPENAI_BASE_URL": srv.URL + "/v1"}
	origHandler := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(srv.Requests()) == 1 {
			os.WriteFile(filepath.Join(ws, "hello.py"), []byte("# user edit\n"+helloPy), 0o644)
		}
		origHandler.ServeHTTP(w, r)
	})
	r := runCLI(t, env, "ask", "--apply", "--workspace", ws, "edit")
	if r.code != exitFailed || !strings.Contains(r.stderr, "hello.py changed while the agent worked") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "hello.py")); string(got) != "# user edit\n"+helloPy {
		t.Fatalf("the user's edit was overwritten: %q", got)
	}
}

func TestVersionAndUnknownCommand(t *testing.T) {
	if r := runCLI(t, map[string]string{}, "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "agent-lsp ") {
		t.Fatalf("%+v", r)
	}
	if r := runCLI(t, map[string]string{}, "frobnicate"); r.code != exitUsage || !strings.Contains(r.stderr, `unknown command "frobnicate"`) {
		t.Fatalf("%+v", r)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
