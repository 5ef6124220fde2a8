package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

// hostileText carries what a terminal would obey: an OSC 52 clipboard
// write, an OSC 8 link, a title change, a line erased and the cursor moved,
// concealed text, a C1 CSI and a bidi override.
const hostileText = "clip\x1b]52;c;cGF5bG9hZA==\x07 link\x1b]8;;http://evil.example\x07x\x1b]8;;\x07 \x1b]0;title\x07 \x1b[2K\x1b[1A \x1b[8mhidden\x1b[0m \u009b2J \u202eevil"

// obeyable reports what of s a terminal would act on.
func obeyable(s string) []string {
	var found []string
	for _, c := range []string{"\x1b", "\u009b", "\u202e", "\x07"} {
		if strings.Contains(s, c) {
			found = append(found, c)
		}
	}
	return found
}

// TestWhatAskPrintsIsShownNotObeyed: the answer, a command's output in the
// trace and a file's text in the diff reach the terminal escaped, visibly.
func TestWhatAskPrintsIsShownNotObeyed(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "alpha\n"})
	content, _ := json.Marshal("line one " + hostileText + "\n")
	command, _ := json.Marshal("printf 'out: \\033]52;c;cGF5bG9hZA==\\007 \\033[2K done\\n'")
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{ID: "c1", Name: "execute_command", Args: `{"command":` + string(command) + `}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{ID: "c2", Name: "write_file", Args: `{"path":"a.txt","content":` + string(content) + `}`}}},
		llmtest.Turn{Text: "Done. " + hostileText},
	)
	config := userConfig(t, "allowlist = [\"printf\"]\n")
	r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "gpt-test", "OPENAI_BASE_URL": srv.URL + "/v1", "XDG_CONFIG_HOME": config},
		"ask", "--workspace", ws, "do it")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if found := obeyable(r.stdout + r.stderr); len(found) > 0 {
		t.Errorf("ask printed %q raw:\nstdout:\n%s\nstderr:\n%s", found, r.stdout, r.stderr)
	}
	for _, want := range []string{`Done. clip\x1b]52;c;`, `\u202eevil`, `+line one clip\x1b]52`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout does not show %q escaped:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, `out: \x1b]52;c;`) || !strings.Contains(r.stderr, "shown escaped above") {
		t.Errorf("the trace does not show the command's output escaped, or the diff's note is missing:\n%s", r.stderr)
	}
	// The control: what the model and the command sent did hold them.
	msgs := srv.Requests()[1]["messages"].([]any)
	if observed := msgs[len(msgs)-1].(map[string]any)["content"].(string); len(obeyable(observed)) == 0 {
		t.Errorf("control: the command's output held no escape sequence: %q", observed)
	}
}
