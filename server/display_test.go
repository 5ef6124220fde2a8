package server_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestWhatTheEditorShowsIsShownNotObeyed: a prompt, an answer, a command's
// output and a file's text carrying escape sequences and bidi controls reach
// the editor's log, messages, questions, progress, documents and command
// results escaped, visibly — a plain client (no progress, no documents)
// gets the answer as a message, another the progress and the documents —
// while the edits themselves carry the file's text as it is.
func TestWhatTheEditorShowsIsShownNotObeyed(t *testing.T) {
	for name, caps := range map[string]servertest.Caps{"progress and documents": {Progress: true, ShowDocument: true}, "plain": servertest.Plain} {
		content, _ := json.Marshal("line one " + toolstest.HostileText + "\n")
		command, _ := json.Marshal(toolstest.HostilePrintf)
		srv := llmtest.NewOpenAIServer(t,
			llmtest.Turn{Text: "Looking. " + toolstest.HostileText, Calls: []llmtest.Call{call("execute_command", `{"command":`+string(command)+`}`)}},
			llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"a.txt","content":`+string(content)+`}`)}},
			llmtest.Turn{Text: "Done. " + toolstest.HostileText},
		)
		// The file held such bytes before: a raw C1 CSI byte (not UTF-8) and ESC.
		f := newFixture(t, map[string]string{"a.txt": "alpha \x9b2J \x1b[8m\n"}, srv, nil)
		f.editor.Initialize(f.root, caps, nil)
		f.editor.SetApprove("Allow once")
		var res askResult
		if err := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "go " + toolstest.HostileText, "wait": true}, &res); err != nil {
			t.Fatal(err)
		}
		f.editor.Wait("the end of the run", func() bool {
			_, ended := f.editor.ProgressEnded("agent-lsp/" + res.RunID)
			return ended || len(f.editor.Messages()) > 0
		})
		var shown struct {
			Diff string
			URI  uri.URI
		}
		if err := f.editor.Command(server.CommandShowProposal, map[string]any{"id": res.ProposalID}, &shown); err != nil {
			t.Fatal(err)
		}
		var applied struct{ Applied bool }
		if err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": res.ProposalID}, &applied); err != nil {
			t.Fatal(err)
		}

		seen := map[string]string{"answer": res.Answer, "ask's diff": res.Diff, "showProposal's diff": shown.Diff}
		seen["logs"] = strings.Join(f.editor.Logs(), "\n")
		seen["messages"] = strings.Join(f.editor.Messages(), "\n")
		seen["questions"] = strings.Join(f.editor.Asked(), "\n")
		for _, p := range f.editor.Progress() {
			seen["progress"] += p.Title + "\n" + p.Message + "\n"
		}
		for _, e := range f.editor.Edits() {
			if e.Label != nil {
				seen["edit label"] += *e.Label
			}
		}
		for _, u := range append(f.editor.Shown(), shown.URI) {
			data, err := os.ReadFile(u.FsPath())
			if err != nil {
				t.Fatal(err)
			}
			seen["document "+string(u)] = string(data)
		}
		all := ""
		for what, s := range seen {
			if found := toolstest.Obeyable(s); len(found) > 0 {
				t.Errorf("%s: %s: the editor was sent %q raw:\n%s", name, what, found, s)
			}
			all += what + ":\n" + s + "\n"
		}
		for _, want := range []string{
			"Done. " + toolstest.HostileShown,            // the answer
			"go " + toolstest.HostileShown,               // the prompt, as a title
			toolstest.HostilePrintfShown,                 // the command's output in the log
			tools.EscapedDiffNote + "\n",                 // the diff says so
			"+line one " + toolstest.HostileShown + "\n", // the file's new text
			`-alpha \x9b2J \x1b[8m` + "\n",               // and its old one
		} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: %q is not shown escaped:\n%s", name, want, all)
			}
		}
		if !strings.HasPrefix(res.Diff, tools.EscapedDiffNote+"\n") || shown.Diff != res.Diff {
			t.Errorf("%s: the diffs do not start with the note:\nask: %s\nshow: %s", name, res.Diff, shown.Diff)
		}
		// The edit is the file's text, as it is: the editor previews it.
		edits, _ := json.Marshal(f.editor.Edits())
		if !strings.Contains(string(edits), `line one clip\u001b]52;c;`) || !strings.Contains(string(edits), "\u202eevil") {
			t.Errorf("%s: the edit does not carry the file's text as it is: %s", name, edits)
		}
		// The control: the command's output as the model got it held them.
		msgs := srv.Requests()[1]["messages"].([]any)
		if observed := msgs[len(msgs)-1].(map[string]any)["content"].(string); !strings.Contains(observed, "\x1b]52") {
			t.Errorf("control: the command's output held no escape sequence: %q", observed)
		}
	}
}

// TestAFailureIsShownNotObeyed: a provider's error text reaches the
// command's result and the editor's messages escaped.
func TestAFailureIsShownNotObeyed(t *testing.T) {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "refused " + toolstest.HostileText, "type": "invalid_request_error"}})
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Status: 400, Body: string(body)})
	f := newFixture(t, nil, srv, nil)
	f.editor.Initialize(f.root, servertest.Plain, nil)
	var res askResult
	if err := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "go", "wait": true}, &res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Answer, "refused "+toolstest.HostileShown) {
		t.Errorf("the provider's words are not in the answer, escaped: %q", res.Answer)
	}
	shown := res.Answer + strings.Join(f.editor.Messages(), "\n") + strings.Join(f.editor.Logs(), "\n") + strings.Join(f.editor.Asked(), "\n")
	if found := toolstest.Obeyable(shown); len(found) > 0 {
		t.Errorf("the editor was sent %q raw:\n%s", found, shown)
	}
}

// TestCodeActionTitlesAreShownNotObeyed: an instruction comment's and a
// diagnostic's text reach the code action menu (Helix and Neovim draw it in
// a terminal) escaped; the prompt the action carries keeps them.
func TestCodeActionTitlesAreShownNotObeyed(t *testing.T) {
	f := newFixture(t, nil, nil, nil)
	f.editor.Initialize(f.root, servertest.Plain, nil)
	u := f.uri("x.go")
	f.editor.Open(u, "// AGENT: tidy "+toolstest.HostileText+"\n")
	actions := codeActions(t, f, map[string]any{
		"textDocument": map[string]any{"uri": u},
		"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}},
		"context": map[string]any{"diagnostics": []any{map[string]any{
			"range":   map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 2}},
			"message": "bad \x1b]8;;http://evil.example\x07 \u202eword", "severity": 1,
		}}},
	})
	var titles []string
	for _, a := range actions {
		titles = append(titles, a.Title)
	}
	all := strings.Join(titles, "\n")
	if found := toolstest.Obeyable(all); len(found) > 0 {
		t.Errorf("code action titles hold %q raw:\n%s", found, all)
	}
	for _, want := range []string{`Agent: tidy clip\x1b]52;c;`, `Fix with agent: bad \x1b]8;;http://evil.example\x07 \u202eword`} {
		if !strings.Contains(all, want) {
			t.Errorf("no title shows %q:\n%s", want, all)
		}
	}
	args, _ := json.Marshal(actions[0].Command.Arguments)
	if !strings.Contains(string(args), `\u001b]52`) {
		t.Errorf("the action's prompt lost the comment's text: %s", args)
	}
}
