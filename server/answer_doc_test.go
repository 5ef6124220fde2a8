package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// TestTheAnswerNamesWhatTheClientCanRun: the answer document of a client
// that cannot pass a command arguments (Helix 25.01) names the code
// actions that apply or discard the proposal and keep the notes, never
// `agent.applyProposal proposal-1`; another client without previews
// (eglot) is told both.
func TestTheAnswerNamesWhatTheClientCanRun(t *testing.T) {
	for _, c := range []struct {
		name        string
		caps        servertest.Caps
		want, lacks []string
	}{
		{"helix", servertest.Caps{Name: "helix", Version: "25.01.1", NoMessageRequest: true},
			[]string{`Apply it with the code action "Apply agent proposal", or discard it with the code action "Discard agent proposal".`,
				`or with the code action "Keep the agent's notes".`},
			[]string{"`agent.applyProposal", "`agent.discardProposal", "`agent.keepNotes"}},
		{"eglot", servertest.Plain,
			[]string{"Apply it with the code action \"Apply agent proposal\" or the command `agent.applyProposal proposal-1`, or discard it with the code action \"Discard agent proposal\" or the command `agent.discardProposal proposal-1`.",
				"or with the code action \"Keep the agent's notes\" or the command `agent.keepNotes run-1`."}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t,
				llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"b.txt","content":"b\n"}`), call("remember", `{"note":"b.txt is new"}`)}},
				llmtest.Turn{Text: "Wrote b.txt."},
			)
			var cache string
			f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, nil, func(o *server.Options) { cache = o.CacheDir })
			f.editor.Initialize(f.root, c.caps, nil)
			if res := f.ask(map[string]any{"prompt": "write b", "wait": true}); res.State != "completed" {
				t.Fatalf("%+v", res)
			}
			data, err := os.ReadFile(filepath.Join(cache, "documents", "run-1.md"))
			if err != nil {
				t.Fatal(err)
			}
			doc := string(data)
			for _, w := range c.want {
				if !strings.Contains(doc, w) {
					t.Errorf("the answer lacks %q:\n%s", w, doc)
				}
			}
			for _, l := range c.lacks {
				if strings.Contains(doc, l) {
					t.Errorf("the answer names %s, which this client cannot run:\n%s", l, doc)
				}
			}
		})
	}
}
