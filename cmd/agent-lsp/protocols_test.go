package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

// The seed scenario and an edit, through `agent-lsp ask`, with models that
// have no native function calling.
func TestAskWithTextToolProtocols(t *testing.T) {
	cases := map[string][]llmtest.Turn{
		"json": {
			{Text: "```json\n{\"thought\": \"I should read it\", \"tool_call\": {\"name\": \"read_file\", \"input\": {\"path\": \"hello.py\"}}}\n```"},
			{Text: `{"thought": "now fix it", "tool_call": {"name": "edit_file", "input": {"path": "hello.py", "old_string": "Hello, World!", "new_string": "Hello, JSON!",}}}`},
			{Text: `{"thought": "done", "response": "greet() now says Hello, JSON!"}`},
		},
		"text": {
			{Text: "Let me read it.\nTOOL_CALL: {\"name\": \"read_file\", \"args\": {\"path\": \"hello.py\"}}"},
			{Text: "TOOL_CALL: {\"name\": \"edit_file\", \"args\": {\"path\": \"hello.py\", \"old_string\": \"Hello, World!\", \"new_string\": \"Hello, text!\"}}"},
			{Text: "greet() now says Hello, text!"},
		},
	}
	for proto, turns := range cases {
		t.Run(proto, func(t *testing.T) {
			ws := newWorkspace(t, map[string]string{"hello.py": helloPy})
			srv := llmtest.NewOpenAIServer(t, turns...)
			r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "llama3", "OPENAI_BASE_URL": srv.URL + "/v1", "AGENT_LSP_TOOL_PROTOCOL": proto},
				"ask", "--workspace", ws, "read hello.py and change the greeting")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			want := map[string]string{"json": "Hello, JSON!", "text": "Hello, text!"}[proto]
			if !strings.HasPrefix(r.stdout, "greet() now says "+want+"\n") || !strings.Contains(r.stdout, "+    return \""+want+"\"") {
				t.Fatalf("stdout:\n%s", r.stdout)
			}
			first := srv.Requests()[0]
			if first["tools"] != nil {
				t.Fatal("native tools were sent to a model without function calling")
			}
			sys := first["messages"].([]any)[0].(map[string]any)["content"].(string)
			if !strings.Contains(sys, "read_file") || !strings.Contains(sys, "input schema") {
				t.Fatalf("tools not described in the system prompt:\n%s", sys)
			}
			if proto == "json" && first["response_format"] == nil {
				t.Fatal("JSON mode not requested")
			}
			second := srv.Requests()[1]["messages"].([]any)
			result := second[len(second)-1].(map[string]any)
			if result["role"] != "user" || !strings.Contains(result["content"].(string), "Tool execution results:\n1. read_file") ||
				!strings.Contains(result["content"].(string), "Hello, World!") {
				t.Fatalf("tool result message: %v", result)
			}
			if data, _ := os.ReadFile(filepath.Join(ws, "hello.py")); string(data) != helloPy {
				t.Fatal("disk written without --apply")
			}
		})
	}
}

func TestAskStopsAfterThreeMalformedAnswers(t *testing.T) {
	ws := newWorkspace(t, nil)
	bad := llmtest.Turn{Text: "I would like to call read_file on hello.py please."}
	srv := llmtest.NewOpenAIServer(t, bad, bad, bad)
	r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "m", "OPENAI_BASE_URL": srv.URL + "/v1", "AGENT_LSP_TOOL_PROTOCOL": "json"}, "ask", "--workspace", ws, "hi")
	if r.code != exitFailed || !strings.Contains(r.stderr, "too many malformed answers in a row (3)") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	second := srv.Requests()[1]["messages"].([]any)
	if fb := second[len(second)-1].(map[string]any)["content"].(string); !strings.Contains(fb, `"tool_call"`) {
		t.Fatalf("the expected format was not fed back: %s", fb)
	}
}

// TestAskFallsBackToGemini3MidTurn: the turn's calls were made by another
// model, so they have no signature Gemini 3 accepts; the run goes on with
// the documented sentinel rather than failing on Gemini's 400.
func TestAskFallsBackToGemini3MidTurn(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"hello.py": helloPy})
	cfg := userConfig(t, "retry_base_ms = 1\nretry_attempts = 1\n")
	primary := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"hello.py"}`}}},
		llmtest.Turn{Status: 503, Body: `{}`})
	backup := llmtest.NewGemini3Server(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "search", Args: `{"pattern":"greet"}`}}},
		llmtest.Turn{Text: "It greets the world (Gemini 3 finished the turn)."})
	r := runCLI(t, map[string]string{"XDG_CONFIG_HOME": cfg, "AGENT_LSP_MODEL": "primary", "OPENAI_BASE_URL": primary.URL + "/v1",
		"GEMINI_API_KEY": "k", "AGENT_LSP_FALLBACK": "gemini:gemini-3-pro-preview@" + backup.URL}, "ask", "--workspace", ws, "explain hello.py")
	if r.code != 0 || !strings.Contains(r.stdout, "Gemini 3 finished the turn") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(backup.Requests()); n != 2 {
		t.Fatalf("%d requests reached Gemini 3, want 2", n)
	}
}

func TestAskFallsBackWhenThePrimaryFails(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"hello.py": helloPy})
	cfg := userConfig(t, "retry_base_ms = 1\nretry_attempts = 2\n")
	primary := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"hello.py"}`}}},
		llmtest.Turn{Status: 503, Body: `{}`}, llmtest.Turn{Status: 503, Body: `{}`})
	backup := llmtest.NewGeminiServer(t, llmtest.Turn{Text: "It greets the world (answered by the backup)."})
	r := runCLI(t, map[string]string{"XDG_CONFIG_HOME": cfg, "AGENT_LSP_MODEL": "primary", "OPENAI_BASE_URL": primary.URL + "/v1",
		"GEMINI_API_KEY": "k", "AGENT_LSP_FALLBACK": "gemini:gemini-test@" + backup.URL}, "ask", "--workspace", ws, "explain hello.py")
	if r.code != 0 || !strings.Contains(r.stdout, "answered by the backup") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "switching to gemini:gemini-test") || !strings.Contains(r.stderr, "retry 1/1") {
		t.Fatalf("the switch and the retry must show in the trace:\n%s", r.stderr)
	}
	contents := backup.Requests()[0]["contents"].([]any)
	if len(contents) != 3 || !strings.Contains(toJSON(contents[2]), "Hello, World!") {
		t.Fatalf("the backup did not get the history: %s", toJSON(contents))
	}

	down := llmtest.NewOpenAIServer(t, llmtest.Turn{Status: 503, Body: `{}`}, llmtest.Turn{Status: 503, Body: `{}`})
	r = runCLI(t, map[string]string{"XDG_CONFIG_HOME": cfg, "AGENT_LSP_MODEL": "m", "OPENAI_BASE_URL": down.URL + "/v1"}, "ask", "--workspace", ws, "hi")
	if r.code != exitFailed || !strings.Contains(r.stderr, "set AGENT_LSP_FALLBACK=provider:model") {
		t.Fatalf("what to set: exit %d\n%s", r.code, r.stderr)
	}
}
