package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/mcp/mcptest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestWhatAskPrintsIsShownNotObeyed: the answer, a command's output in the
// trace and a file's text in the diff reach the terminal escaped, visibly,
// and the diff says so.
func TestWhatAskPrintsIsShownNotObeyed(t *testing.T) {
	// The file held such bytes before the agent came: a raw C1 CSI byte
	// (not UTF-8) and ESC.
	ws := newWorkspace(t, map[string]string{"a.txt": "alpha \x9b2J \x1b[8m\n"})
	content, _ := json.Marshal("line one " + toolstest.HostileText + "\n")
	command, _ := json.Marshal(toolstest.HostilePrintf)
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Text: "Looking. " + toolstest.HostileText, Calls: []llmtest.Call{{ID: "c1", Name: "execute_command", Args: `{"command":` + string(command) + `}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{ID: "c2", Name: "write_file", Args: `{"path":"a.txt","content":` + string(content) + `}`}}},
		llmtest.Turn{Text: "Done. " + toolstest.HostileText},
	)
	config := userConfig(t, "allowlist = [\"printf\"]\n")
	r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "gpt-test", "OPENAI_BASE_URL": srv.URL + "/v1", "XDG_CONFIG_HOME": config},
		"ask", "--workspace", ws, "do it")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		if found := toolstest.Obeyable(out); len(found) > 0 {
			t.Errorf("%s holds %q raw:\n%s", name, found, out)
		}
	}
	for _, want := range []string{
		"Done. " + toolstest.HostileShown,            // the answer
		tools.EscapedDiffNote + "\n",                 // the diff says it was escaped
		"+line one " + toolstest.HostileShown + "\n", // the file's text in the diff
		`-alpha \x9b2J \x1b[8m` + "\n",               // and what it held before
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout does not show %q:\n%s", want, r.stdout)
		}
	}
	for _, want := range []string{
		"[THINK] Looking. " + toolstest.HostileShown, // the model's text in the trace
		toolstest.HostilePrintfShown,                 // the command's output
		"shown escaped above",                        // the diff's note
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not show %q:\n%s", want, r.stderr)
		}
	}
	// The control: what the command printed did hold them, raw.
	msgs := srv.Requests()[1]["messages"].([]any)
	if observed := msgs[len(msgs)-1].(map[string]any)["content"].(string); len(toolstest.Obeyable(observed)) == 0 {
		t.Errorf("control: the command's output held no escape sequence: %q", observed)
	}
}

// TestWhatModelsAndDoctorPrintIsShownNotObeyed: a provider's words (its
// models list) reach the terminal escaped.
func TestWhatModelsAndDoctorPrintIsShownNotObeyed(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t)
	srv.SetModels([]string{"evil " + toolstest.HostileText, "qwen-coder"}, "")
	env := map[string]string{"AGENT_LSP_MODEL": "qwen-coder", "OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_API_KEY": "k"}
	for _, cmd := range []string{"models", "doctor"} {
		r := runCLI(t, env, cmd, "--workspace", newWorkspace(t, nil))
		for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
			if found := toolstest.Obeyable(out); len(found) > 0 {
				t.Errorf("%s: %s holds %q raw:\n%s", cmd, name, found, out)
			}
		}
		if cmd == "models" && !strings.Contains(r.stdout, "  evil "+toolstest.HostileShown+" ") {
			t.Errorf("models does not show the model escaped:\n%s", r.stdout)
		}
	}
}

// TestWhatAnMCPServerSaysIsShownNotObeyed: an MCP tool's result reaches the
// trace escaped.
func TestWhatAnMCPServerSaysIsShownNotObeyed(t *testing.T) {
	cfg := userConfig(t, `
[mcp.servers.test]
command = "`+mcptest.TestServer(t)+`"
allowed_tools = ["env"]
`)
	name, _ := json.Marshal(map[string]string{"name": toolstest.HostileText})
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__test__env", Args: string(name)}}},
		llmtest.Turn{Text: "Not set."},
	)
	r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "gpt-test", "OPENAI_BASE_URL": srv.URL + "/v1", "XDG_CONFIG_HOME": cfg, "PATH": os.Getenv("PATH")},
		"ask", "--workspace", newWorkspace(t, nil), "look")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if found := toolstest.Obeyable(r.stdout + r.stderr); len(found) > 0 {
		t.Errorf("ask printed %q raw:\n%s", found, r.stderr)
	}
	if !strings.Contains(r.stderr, toolstest.HostileShown+" is not set") {
		t.Errorf("the trace does not show the MCP tool's result escaped:\n%s", r.stderr)
	}
	// The control: the model got the tool's words as they were.
	if got := toolResults(srv.Requests()[1]); !strings.Contains(got, toolstest.HostileText+" is not set") {
		t.Errorf("control: the tool's result as the model got it: %q", got)
	}
}
