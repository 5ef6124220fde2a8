package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

func TestAskReflexionRunsTheConfiguredChecks(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"calc.py": "def add(a, b):\n    return a - b\n"})
	cfg := userConfig(t, "checks = [\"grep -q 'return a + b' calc.py\"]\n")
	// The same checks in the project's file are not trusted.
	os.WriteFile(filepath.Join(ws, ".agent-lsp.toml"), []byte("checks = [\"touch pwned\"]\n"), 0o644)
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"calc.py","old_string":"return a - b","new_string":"return a + b"}`}}},
		llmtest.Turn{Text: "Fixed add."},
	)
	r := runCLI(t, map[string]string{"XDG_CONFIG_HOME": cfg, "AGENT_LSP_MODEL": "m", "OPENAI_BASE_URL": srv.URL + "/v1"},
		"ask", "--strategy", "reflexion", "--workspace", ws, "fix add")
	if r.code != 0 || !strings.Contains(r.stdout, "The checks pass (trial 1 of 3): grep -q 'return a + b' calc.py") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "checks ignored") {
		t.Fatalf("the untrusted project checks must be reported:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Fatal("a project file's check ran")
	}
	if r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "m", "OPENAI_BASE_URL": srv.URL + "/v1"}, "ask", "--strategy", "yolo", "--workspace", ws, "x"); r.code != exitUsage || !strings.Contains(r.stderr, "unknown strategy") {
		t.Fatalf("bad strategy: %+v", r)
	}
}

func TestAskPlanOnlyPrintsThePlanAndStops(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "a\n"})
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: `{"steps": [{"goal": "rename a.txt", "done": "b.txt exists"}]}`})
	r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "m", "OPENAI_BASE_URL": srv.URL + "/v1"}, "ask", "--workspace", ws, "--plan-only", "rename a.txt")
	if r.code != 0 || !strings.Contains(r.stdout, "The plan was not run:") || !strings.Contains(r.stdout, "rename a.txt") {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if len(srv.Requests()) != 1 {
		t.Fatalf("%d model calls: a step ran", len(srv.Requests()))
	}
}

// TestAskModeAskIsReadOnly: --mode ask is ACP's Ask and the editors'
// Explain: the model may read, not write, and nothing is proposed.
func TestAskModeAskIsReadOnly(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "a\n"})
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"b\n"}`}}},
		llmtest.Turn{Text: "a.txt holds the letter a."})
	env := map[string]string{"AGENT_LSP_MODEL": "m", "OPENAI_BASE_URL": srv.URL + "/v1"}
	r := runCLI(t, env, "ask", "--workspace", ws, "--mode", "ask", "--apply", "what is in a.txt?")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "a.txt holds the letter a." {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if tools := toJSONText(srv.Requests()[0]["tools"]); strings.Contains(tools, "write_file") || !strings.Contains(tools, "read_file") {
		t.Fatalf("ask mode offered %s", tools)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(data) != "a\n" {
		t.Fatalf("a.txt is %q", data)
	}
	if r := runCLI(t, env, "ask", "--workspace", ws, "--mode", "write", "x"); r.code != exitUsage || !strings.Contains(r.stderr, `unknown mode "write": ask, code or plan`) {
		t.Fatalf("a bad mode: %+v", r)
	}
}

func toJSONText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
