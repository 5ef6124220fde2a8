package server_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

const hostileText = "clip\x1b]52;c;cGF5bG9hZA==\x07 \x1b]8;;http://evil.example\x07x \x1b]0;title\x07 \x1b[2K\x1b[1A \x1b[8mhidden \u009b2J \u202eevil"

// TestWhatTheEditorShowsIsShownNotObeyed: an answer and a command's output
// carrying escape sequences reach the editor's log, messages and progress
// escaped, visibly — a plain client (no progress) gets the answer as a
// message, another the progress.
func TestWhatTheEditorShowsIsShownNotObeyed(t *testing.T) {
	for _, caps := range []servertest.Caps{{Progress: true}, servertest.Plain} {
		srv := llmtest.NewOpenAIServer(t,
			llmtest.Turn{Text: "Looking. " + hostileText, Calls: []llmtest.Call{call("execute_command", `{"command":"printf 'out: \\033]52;c;eA==\\007 \\033[2K\\n'"}`)}},
			llmtest.Turn{Text: "Done. " + hostileText},
		)
		f := newFixture(t, nil, srv, nil)
		f.editor.Initialize(f.root, caps, nil)
		f.editor.SetApprove("Allow once")
		var res askResult
		if err := f.editor.Command("agent.ask", map[string]any{"prompt": "go", "wait": true}, &res); err != nil {
			t.Fatal(err)
		}
		f.editor.Wait("the end of the run", func() bool {
			_, ended := f.editor.ProgressEnded("agent-lsp/" + res.RunID)
			return ended || len(f.editor.Messages()) > 0
		})
		var shown []string
		shown = append(shown, f.editor.Logs()...)
		shown = append(shown, f.editor.Messages()...)
		shown = append(shown, f.editor.Asked()...)
		for _, p := range f.editor.Progress() {
			shown = append(shown, p.Title, p.Message)
		}
		all := strings.Join(shown, "\n")
		for _, c := range []string{"\x1b", "\u009b", "\u202e", "\x07"} {
			if strings.Contains(all, c) {
				t.Errorf("the editor was sent %q raw:\n%s", c, all)
			}
		}
		if !strings.Contains(all, `\x1b]52;c;`) {
			t.Errorf("the escape sequences are not shown escaped:\n%s", all)
		}
		// The control: the command's output as the model got it held them.
		msgs := srv.Requests()[1]["messages"].([]any)
		if observed := msgs[len(msgs)-1].(map[string]any)["content"].(string); !strings.Contains(observed, "\x1b]52") {
			t.Errorf("control: the command's output held no escape sequence: %q", observed)
		}
	}
}
