package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools/mcp/mcptest"
)

// offeredTools lists the tool names of a recorded OpenAI request.
func offeredTools(body map[string]any) []string {
	var names []string
	list, _ := body["tools"].([]any)
	for _, t := range list {
		fn, _ := t.(map[string]any)["function"].(map[string]any)
		names = append(names, fn["name"].(string))
	}
	return names
}

// toolResults are the contents of the tool messages of a recorded request.
func toolResults(body map[string]any) string {
	var out []string
	for _, m := range body["messages"].([]any) {
		if msg := m.(map[string]any); msg["role"] == "tool" {
			out = append(out, msg["content"].(string))
		}
	}
	return strings.Join(out, "\n")
}

func tomlList(ss ...string) string {
	b, _ := json.Marshal(ss)
	return string(b)
}

func TestAskCallsAnMCPServersToolsAndAsksForTheOthers(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{"a.txt": "a\n"}), t.TempDir()
	cfg := userConfig(t, `
[mcp.servers.test]
command = "`+mcptest.TestServer(t)+`"
env = { MCPTEST_DIR = "${TEST_DIR}" }
allowed_tools = ["greet"]
`)
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__test__greet", Args: `{"name":"Ada"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__test__lookup", Args: `{"name":"secret"}`}}},
		llmtest.Turn{Text: "Greeted Ada; the lookup was not allowed."},
	)
	r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "gpt-test", "OPENAI_BASE_URL": srv.URL + "/v1", "XDG_CONFIG_HOME": cfg,
		"TEST_DIR": dir, "PATH": os.Getenv("PATH")}, "ask", "--workspace", ws, "greet Ada")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"[AGENT] MCP server test (stdio) started: 11 tool(s)", "[ACT] Executing tool: mcp__test__greet",
		`[AGENT] denied mcp__test__lookup {"name":"secret"}: a tool of the MCP server test (user config); it is not in the server's allowed_tools`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	reqs := srv.Requests()
	if names := offeredTools(reqs[0]); !slices.Contains(names, "mcp__test__greet") || !slices.Contains(names, "read_file") {
		t.Fatalf("offered %v", names)
	}
	results := toolResults(reqs[2])
	if !strings.Contains(results, `{"greeting":"Hello, Ada!"}`) || !strings.Contains(results, "the user did not allow mcp__test__lookup") {
		t.Fatalf("tool results:\n%s", results)
	}
	if starts, _ := os.ReadFile(filepath.Join(dir, "starts")); len(strings.Fields(string(starts))) != 1 {
		t.Fatalf("started %q", starts)
	}
}

// TestAskWithServerEverything: the reference server from npm, through a
// whole ask run.
func TestAskWithServerEverything(t *testing.T) {
	node, args := mcptest.Everything(t)
	ws := newWorkspace(t, map[string]string{"a.txt": "a\n"})
	cfg := userConfig(t, `
[mcp.servers.everything]
command = "`+node+`"
args = `+tomlList(args...)+`
allowed_tools = ["echo", "get-sum"]
`)
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{
			{ID: "c1", Name: "mcp__everything__echo", Args: `{"message":"hello from agent-lsp"}`},
			{ID: "c2", Name: "mcp__everything__get-sum", Args: `{"a":19,"b":23}`},
		}},
		llmtest.Turn{Text: "It echoed and added: 42."},
	)
	r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "gpt-test", "OPENAI_BASE_URL": srv.URL + "/v1", "XDG_CONFIG_HOME": cfg,
		"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME")}, "ask", "--workspace", ws, "use the everything server")
	if r.code != 0 || r.stdout != "It echoed and added: 42.\n" {
		t.Fatalf("exit %d %q\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	names := offeredTools(reqs[0])
	for _, want := range []string{"mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__get-tiny-image"} {
		if !slices.Contains(names, want) {
			t.Errorf("not offered: %s (%v)", want, names)
		}
	}
	results := toolResults(reqs[1])
	if !strings.Contains(results, "Echo: hello from agent-lsp") || !strings.Contains(results, "The sum of 19 and 23 is 42.") {
		t.Fatalf("tool results:\n%s", results)
	}
}

func TestAProjectsMCPJSONNeedsTheUsersTrust(t *testing.T) {
	bin := mcptest.TestServer(t)
	mcpJSON, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"proj": map[string]any{"command": bin, "env": map[string]string{"TOKEN": "${SECRET_TOKEN}"}, "allowed_tools": []string{"env"}},
	}})
	ws := newWorkspace(t, map[string]string{".mcp.json": string(mcpJSON)})
	env := func(cfg string, srv *llmtest.Server) map[string]string {
		return map[string]string{"AGENT_LSP_MODEL": "gpt-test", "OPENAI_BASE_URL": srv.URL + "/v1", "XDG_CONFIG_HOME": cfg,
			"SECRET_TOKEN": "s3cret", "PATH": os.Getenv("PATH")}
	}

	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "no servers"})
	r := runCLI(t, env(t.TempDir(), srv), "ask", "--workspace", ws, "hi")
	if r.code != 0 || !strings.Contains(r.stderr, ".mcp.json: MCP server(s) proj ignored") || !strings.Contains(r.stderr, "trust_project_config = true") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if names := offeredTools(srv.Requests()[0]); slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "mcp__") }) {
		t.Fatalf("an untrusted project's server was offered: %v", names)
	}

	srv = llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__proj__env", Args: `{"name":"TOKEN"}`}}},
		llmtest.Turn{Text: "done"},
	)
	r = runCLI(t, env(userConfig(t, "trust_project_config = true\n"), srv), "ask", "--workspace", ws, "hi")
	if r.code != 0 || !strings.Contains(r.stderr, "[AGENT] MCP server proj (stdio) started") || !strings.Contains(r.stderr, "${SECRET_TOKEN} left as written") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if results := toolResults(srv.Requests()[1]); results != "TOKEN=${SECRET_TOKEN}" {
		t.Fatalf("a project's server got %q", results)
	}
}

func TestDoctorStartsTheMCPServers(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	srv.SetModels([]string{"qwen-coder"}, "")
	bin := mcptest.TestServer(t)
	cfg := userConfig(t, `
[mcp.servers.test]
command = "`+bin+`"
allowed_tools = ["greet"]

[mcp.servers.broken]
command = "`+bin+`"
args = ["-exit-at-start"]

[mcp.servers.off]
command = "`+bin+`"
enabled = false
`)
	env := map[string]string{"AGENT_LSP_MODEL": "qwen-coder", "OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_API_KEY": "k", "XDG_CONFIG_HOME": cfg, "PATH": os.Getenv("PATH")}
	r := runCLI(t, env, "doctor", "--workspace", newWorkspace(t, nil))
	if r.code != exitFailed {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
	for _, line := range []string{
		"[ok  ] MCP server test (stdio: " + bin + "; user config): ready, 11 tool(s): mcp__test__big, mcp__test__crash,",
		"; run without asking: mcp__test__greet",
		"[FAIL] MCP server broken (stdio: " + bin + " -exit-at-start; user config): failed: ",
		`its stderr ends: \x1b[31mtestserver: cannot start: missing database\x1b[0m`,
		"[warn] MCP server off (stdio: " + bin + "; user config): disabled",
	} {
		if !strings.Contains(r.stdout, line) {
			t.Errorf("doctor lacks %q:\n%s", line, r.stdout)
		}
	}
}
