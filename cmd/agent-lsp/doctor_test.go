package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// models marks the one in use and says what is known of each: the
// catalog's window and images for a model it knows wherever it is served
// (its price only at its own provider), nothing for another.
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
			c.srv.SetModels([]string{"gpt-4o-mini", "qwen-coder"}, "")
			r := runCLI(t, c.env(c.srv.URL), "models", "--workspace", newWorkspace(t, nil))
			lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			known := config.Settings{Provider: config.ProviderOpenAI, BaseURL: "http://proxy", Model: "gpt-4o-mini"}.Facts()
			if r.code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "  gpt-4o-mini ") || !strings.HasSuffix(lines[0], known.String()) ||
				!strings.Contains(known.String(), "128k context, price unknown, takes images") ||
				!strings.HasPrefix(lines[1], "* qwen-coder ") || !strings.HasSuffix(lines[1], "context unknown, price unknown, text only") {
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

// Credentials in a base URL (and a fallback's) never show: doctor names the
// server with its userinfo and secret query values as ***, and a provider
// that cannot be reached is named the same way in ask's error.
func TestDoctorAndAskRedactBaseURLCredentials(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	srv.SetModels([]string{"qwen-coder"}, "")
	host := strings.TrimPrefix(srv.URL, "http://")
	env := map[string]string{"AGENT_LSP_MODEL": "qwen-coder", "OPENAI_API_KEY": "k",
		"OPENAI_BASE_URL":    "http://TOKENUSER:PASSWORD@" + host + "/v1?api_key=QUERYKEY",
		"AGENT_LSP_FALLBACK": "openai:other@http://FBUSER:FBPASS@" + host + "/v1"}
	r := runCLI(t, env, "doctor", "--workspace", newWorkspace(t, nil))
	if want := "[ok  ] model: openai:qwen-coder at http://***@" + host + "/v1?api_key=***"; !strings.Contains(r.stdout, want) {
		t.Errorf("doctor lacks %q:\n%s%s", want, r.stdout, r.stderr)
	}
	dead := newWorkspace(t, map[string]string{"hello.py": "print(1)\n"})
	env["OPENAI_BASE_URL"], env["AGENT_LSP_FALLBACK"] = "http://TOKENUSER:PASSWORD@127.0.0.1:1/v1?api_key=QUERYKEY", ""
	env["XDG_CONFIG_HOME"] = userConfig(t, "retry_attempts = 1\nretry_base_ms = 1\n")
	a := runCLI(t, env, "ask", "--workspace", dead, "explain hello.py")
	if a.code == 0 || !strings.Contains(a.stderr, "Post \"http://***@127.0.0.1:1/v1/chat/completions\": dial tcp") {
		t.Errorf("ask against a dead server: exit %d, stderr:\n%s", a.code, a.stderr)
	}
	for _, out := range []string{r.stdout, r.stderr, a.stdout, a.stderr} {
		for _, secret := range []string{"TOKENUSER", "PASSWORD", "QUERYKEY", "FBUSER", "FBPASS"} {
			if strings.Contains(out, secret) {
				t.Errorf("%s shows in:\n%s", secret, out)
			}
		}
	}
}

// doctor --sandbox prints the world a command of the workspace gets: the
// view at the workspace's path, none of the caller's secrets, and the
// network only with the user's opt-in.
func TestDoctorSandbox(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "canary") // commands start from this process's environment
	ws := newWorkspace(t, map[string]string{"main.go": "package main\n"})
	root, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	level := tools.SandboxLevel()
	env := map[string]string{"OPENAI_API_KEY": "canary", "HOME": t.TempDir()}
	r := runCLI(t, env, "doctor", "--sandbox", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	wants := []string{"sandbox: " + level.String() + "\n", "level " + string(level.Level) + "\n", "\nview " + root + " ", "\nenv PATH=", "\nlimit timeout 30s\n"}
	if level.Level == sandbox.Full {
		wants = append(wants, "\nmount view "+root+" rw\n", "\nnamespaces user mount pid net ipc uts\n", "\nnetwork off: ")
	}
	if level.Level == sandbox.Landlock && level.LandlockABI >= 4 {
		wants = append(wants, "\nnetwork off: ")
	}
	for _, want := range wants {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor --sandbox lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, leak := range []string{"canary", "OPENAI_API_KEY", "opted in"} {
		if strings.Contains(r.stdout, leak) {
			t.Errorf("doctor --sandbox holds %q:\n%s", leak, r.stdout)
		}
	}

	env["XDG_CONFIG_HOME"] = userConfig(t, "sandbox_network = true\ncommand_timeout_s = 90\n")
	r = runCLI(t, env, "doctor", "--sandbox", "--workspace", ws)
	for _, want := range []string{"\nnetwork on: the user opted in (sandbox_network)\n", "\nlimit timeout 1m30s\n"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("with the opt-in, exit %d, lacks %q:\n%s%s", r.code, want, r.stdout, r.stderr)
		}
	}
	if level.Level == sandbox.Full && !strings.Contains(r.stdout, "\nnamespaces user mount pid ipc uts\n") {
		t.Errorf("with the opt-in, the command still has a network namespace of its own:\n%s", r.stdout)
	}
}

// doctor --sandbox --server prints a language server's world: its program
// found on PATH, the view read-only, its own cache, no timeout and no
// network even with the user's opt-in for commands, none of the caller's
// secrets.
func TestDoctorSandboxServer(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "canary")
	ws := newWorkspace(t, map[string]string{"main.go": "package main\n"})
	root, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	level := tools.SandboxLevel()
	env := map[string]string{"OPENAI_API_KEY": "canary", "HOME": t.TempDir(), "XDG_CONFIG_HOME": userConfig(t, "sandbox_network = true\n")}
	r := runCLI(t, env, "doctor", "--sandbox", "--server", "cat -u", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	wants := []string{"\nkind language server: ", "\nargv " + cat + " -u\n", "\nwhere $CACHE is ", "\nenv GOTOOLCHAIN=local\n", "\nenv GOPROXY=off\n", "\nenv GOSUMDB=off\n"}
	if level.Level == sandbox.Full {
		wants = append(wants, "\nmount view "+root+" ro\n", "\nnamespaces user mount pid net ipc uts\n", "\nnetwork off: ")
	}
	for _, want := range wants {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor --sandbox --server lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, leak := range []string{"canary", "OPENAI_API_KEY", "opted in", "limit timeout"} {
		if strings.Contains(r.stdout, leak) {
			t.Errorf("doctor --sandbox --server holds %q:\n%s", leak, r.stdout)
		}
	}
	if r := runCLI(t, env, "doctor", "--sandbox", "--server", "no-such-language-server", "--workspace", ws); r.code == 0 || !strings.Contains(r.stderr, "no-such-language-server") {
		t.Errorf("a missing server: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, env, "doctor", "--server", "gopls", "--workspace", ws); r.code != exitUsage {
		t.Errorf("--server without --sandbox: exit %d", r.code)
	}
}
