package main

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

func TestModelsMarksTheOneInUse(t *testing.T) {
	for _, c := range []struct {
		name string
		srv  *llmtest.Server
		env  func(url string) map[string]string
	}{
		{"openai-compatible", llmtest.NewOpenAIServer(t), func(url string) map[string]string {
			return map[string]string{"AGENT_LSP_MODEL": "qwen-coder", "OPENAI_BASE_URL": url + "/v1", "OPENAI_API_KEY": "k"}
		}},
		{"gemini", llmtest.NewGeminiServer(t), func(url string) map[string]string {
			return map[string]string{"AGENT_LSP_PROVIDER": "gemini", "AGENT_LSP_MODEL": "qwen-coder", "GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": url}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.srv.SetModels([]string{"llama3.2", "qwen-coder"}, "")
			r := runCLI(t, c.env(c.srv.URL), "models", "--workspace", newWorkspace(t, nil))
			if r.code != 0 || r.stdout != "  llama3.2\n* qwen-coder\n" {
				t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

func TestDoctor(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	srv.SetModels([]string{"qwen-coder"}, "")
	ws := newWorkspace(t, map[string]string{".agent-lsp.toml": "base_url = \"http://elsewhere.example\"\n"})
	env := map[string]string{"AGENT_LSP_MODEL": "qwen-coder", "OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_API_KEY": "k"}
	r := runCLI(t, env, "doctor", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, line := range []string{"project config: " + ws, "[warn] ignored: ", "base_url ignored", "[ok  ] model: openai:qwen-coder at " + srv.URL,
		"[ok  ] provider: reachable and authorised (1 models)", "[ok  ] model qwen-coder is served", "[ok  ] tool protocol: native", "sandbox: "} {
		if !strings.Contains(r.stdout, line) {
			t.Errorf("doctor lacks %q:\n%s", line, r.stdout)
		}
	}
	// A refused key and a model the server doesn't serve.
	env["AGENT_LSP_MODEL"] = "gpt-nothing"
	r = runCLI(t, env, "doctor", "--workspace", ws)
	if r.code != 0 || !strings.Contains(r.stdout, "[warn] model gpt-nothing is not in the provider's list") {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
	srv.SetModels([]string{"qwen-coder"}, "k")
	r = runCLI(t, env, "doctor", "--workspace", ws)
	if r.code != exitFailed || !strings.Contains(r.stdout, "[FAIL] provider: the key was refused") {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
}
