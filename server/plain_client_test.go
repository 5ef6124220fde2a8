package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// A plain client (servertest.Plain) speaks only standard LSP: everything must
// be reachable from its code-action menu, and nothing may end in an error or
// be dropped because it lacks a capability.

type menuAction struct {
	Title   string            `json:"title"`
	Kind    string            `json:"kind"`
	Command *protocol.Command `json:"command"`
	Edit    *json.RawMessage  `json:"edit"`
	Diags   []json.RawMessage `json:"diagnostics"`
	Data    map[string]any    `json:"data"`
	_       struct{}          `json:"-"`
}

func menu(t *testing.T, f *fixture, u uri.URI, line uint32) []menuAction {
	t.Helper()
	var actions []menuAction
	pos := map[string]any{"line": line, "character": 0}
	params := map[string]any{"textDocument": map[string]any{"uri": u}, "range": map[string]any{"start": pos, "end": pos},
		"context": map[string]any{"diagnostics": []any{}}}
	if err := f.editor.Call("textDocument/codeAction", params, &actions); err != nil {
		t.Fatal(err)
	}
	return actions
}

// pick runs a code action's command as the client does.
func pick(t *testing.T, f *fixture, a menuAction, result any) error {
	t.Helper()
	if a.Command == nil {
		t.Fatalf("%q has no command", a.Title)
	}
	var arg any
	if len(a.Command.Arguments) > 0 {
		arg = a.Command.Arguments[0]
	}
	return f.editor.Command(a.Command.Command, arg, result)
}

func titles(actions []menuAction) []string {
	var out []string
	for _, a := range actions {
		out = append(out, a.Title)
	}
	return out
}

func TestPlainClientDecidesFromTheCodeActionMenu(t *testing.T) {
	release := make(chan struct{})
	calls := 0
	srv := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		calls++
		switch {
		case calls == 1:
			return llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"a.txt","old_string":"one","new_string":"uno"}`)}}
		case calls == 2:
			return llmtest.Turn{Text: "translated"}
		}
		<-release // the second run stays going until the test says
		return llmtest.Turn{Text: "late"}
	})
	f := newFixture(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "elsewhere\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Plain, nil)
	f.editor.Open(f.uri("a.txt"), "one\ntwo\n")
	f.editor.Open(f.uri("b.txt"), "elsewhere\n")
	res := f.ask(map[string]any{"prompt": "translate", "wait": true})
	if res.State != "completed" {
		t.Fatalf("run: %+v", res)
	}
	// In another file, the proposal's decisions come first.
	actions := menu(t, f, f.uri("b.txt"), 0)
	want := []string{"Apply agent proposal (1 file(s), proposal-1)", "Show agent proposal (proposal-1)", "Discard agent proposal (proposal-1)"}
	if got := titles(actions); len(got) < 3 || strings.Join(got[:3], "|") != strings.Join(want, "|") {
		t.Fatalf("menu: %q", got)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("listing called the model: %d requests", n)
	}
	var shown struct {
		Diff string `json:"diff"`
	}
	if err := pick(t, f, actions[1], &shown); err != nil || !strings.Contains(shown.Diff, "+uno") {
		t.Fatalf("show: %v %q", err, shown.Diff)
	}
	var applied struct {
		Applied bool `json:"applied"`
	}
	if err := pick(t, f, actions[0], &applied); err != nil || !applied.Applied {
		t.Fatalf("apply: %v %+v", err, applied)
	}
	if b, _ := f.editor.Buffer(f.uri("a.txt")); b.Text != "uno\ntwo\n" {
		t.Fatalf("buffer %q", b.Text)
	}
	if got := titles(menu(t, f, f.uri("b.txt"), 0)); strings.Contains(strings.Join(got, "|"), "agent proposal") {
		t.Fatalf("an applied proposal is still offered: %q", got)
	}

	// While a run is going, cancelling it is first in the menu.
	second := f.ask(map[string]any{"prompt": "wait for me"})
	var cancel menuAction
	f.editor.Wait("the cancel action", func() bool {
		actions := menu(t, f, f.uri("b.txt"), 0)
		if len(actions) > 0 && strings.HasPrefix(actions[0].Title, "Cancel agent run ("+second.RunID) {
			cancel = actions[0]
			return true
		}
		return false
	})
	var cancelled struct {
		Cancelled []string `json:"cancelled"`
	}
	if err := pick(t, f, cancel, &cancelled); err != nil || len(cancelled.Cancelled) != 1 || cancelled.Cancelled[0] != second.RunID {
		t.Fatalf("cancel: %v %+v", err, cancelled)
	}
	close(release)
	f.editor.Wait("the end message", func() bool {
		return strings.Contains(strings.Join(f.editor.Messages(), "\n"), "agent-lsp: "+second.RunID+": Cancelled")
	})
}

func TestPlainClientAskInsertsAnInstructionTemplate(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "Added."})
	f := newFixture(t, map[string]string{"a.py": "def f():\n    pass\n", "main.go": "package main\n", "README.md": "# x\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Plain, nil)
	for _, tc := range []struct {
		file, text string
		line       uint32
		want       string
	}{
		{"a.py", "def f():\n    pass\n", 1, "def f():\n    # AGENT: \n    pass\n"},
		{"main.go", "package main\n", 0, "// AGENT: \npackage main\n"},
		{"README.md", "# x\n", 1, "# x\n<!-- AGENT:  -->\n"},
	} {
		u := f.uri(tc.file)
		f.editor.Open(u, tc.text)
		var ask menuAction
		for _, a := range menu(t, f, u, tc.line) {
			if strings.HasPrefix(a.Title, "Ask agent…") {
				ask = a
			}
		}
		if ask.Command != nil || ask.Edit == nil {
			t.Fatalf("%s: Ask agent… must be an edit for a client without a prompt box: %+v", tc.file, ask)
		}
		var edit protocol.WorkspaceEdit
		if err := protocol.Unmarshal(*ask.Edit, &edit); err != nil {
			t.Fatal(err)
		}
		if err := f.editor.ApplyEdit(edit); err != nil {
			t.Fatal(err)
		}
		if b, _ := f.editor.Buffer(u); b.Text != tc.want {
			t.Fatalf("%s: template inserted as %q, want %q", tc.file, b.Text, tc.want)
		}
	}
	// The user writes the request in the template and picks its action.
	u := f.uri("a.py")
	f.editor.Type(u, "def f():\n    # AGENT: add a docstring\n    pass\n")
	var run menuAction
	for _, a := range menu(t, f, u, 1) {
		if a.Title == "Agent: add a docstring" {
			run = a
		}
	}
	var res askResult
	if err := pick(t, f, run, &res); err != nil || res.RunID == "" {
		t.Fatalf("the instruction's action: %v %+v", err, res)
	}
	f.editor.Wait("the run's end", func() bool {
		return strings.Contains(strings.Join(f.editor.Messages(), "\n"), "\n\nCompleted")
	})
	if asked := llmtest.LastUserText(srv.Requests()[0]); !strings.HasPrefix(asked, "add a docstring") {
		t.Fatalf("the model was asked %q", asked)
	}
	// A client with a prompt box keeps the command.
	g := newFixture(t, map[string]string{"a.py": "x\n"}, nil, nil)
	g.editor.Initialize(g.root, servertest.Caps{PromptInput: true}, nil)
	g.editor.Open(g.uri("a.py"), "x\n")
	for _, a := range menu(t, g, g.uri("a.py"), 0) {
		if a.Title == "Ask agent…" && (a.Command == nil || a.Command.Command != server.CommandAsk) {
			t.Fatalf("with a prompt box, Ask agent… is %+v", a)
		}
	}
}

func TestPlainClientGetsNewFilesAnotherWay(t *testing.T) {
	for _, showDocument := range []bool{false, true} {
		srv := llmtest.NewOpenAIServer(t,
			llmtest.Turn{Calls: []llmtest.Call{
				call("edit_file", `{"path":"a.txt","old_string":"one","new_string":"uno"}`),
				call("write_file", `{"path":"docs/new.txt","content":"brand new\nsecond line\n"}`),
			}},
			llmtest.Turn{Text: "done"},
		)
		f := newFixture(t, map[string]string{"a.txt": "one\n"}, srv, nil)
		caps := servertest.Plain
		caps.ShowDocument = showDocument
		f.editor.Initialize(f.root, caps, nil)
		f.editor.Open(f.uri("a.txt"), "one\n")
		res := f.ask(map[string]any{"prompt": "both", "wait": true})
		var applied struct {
			Applied bool `json:"applied"`
			Offered []struct {
				Path     string  `json:"path"`
				Document uri.URI `json:"document"`
				Shown    bool    `json:"shown"`
			} `json:"offered"`
		}
		if err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": res.ProposalID}, &applied); err != nil || !applied.Applied {
			t.Fatalf("showDocument=%v: the edits to existing files must apply: %v %+v", showDocument, err, applied)
		}
		if b, _ := f.editor.Buffer(f.uri("a.txt")); b.Text != "uno\n" {
			t.Fatalf("buffer %q", b.Text)
		}
		if len(applied.Offered) != 1 || applied.Offered[0].Path != "docs/new.txt" || applied.Offered[0].Shown != showDocument {
			t.Fatalf("offered: %+v", applied.Offered)
		}
		if data, err := os.ReadFile(applied.Offered[0].Document.FsPath()); err != nil || string(data) != "brand new\nsecond line\n" {
			t.Fatalf("the offered document: %q %v", data, err)
		}
		if _, err := os.Stat(filepath.Join(f.root, "docs/new.txt")); err == nil {
			t.Fatal("the server wrote the workspace")
		}
		var msg string
		f.editor.Wait("the message", func() bool {
			for _, m := range f.editor.Messages() {
				if strings.Contains(m, "cannot create files") {
					msg = m
				}
			}
			return msg != ""
		})
		if !strings.Contains(msg, "applied the edits to 1 existing file(s)") || !strings.Contains(msg, "docs/new.txt") {
			t.Fatalf("the message does not say what happened: %q", msg)
		}
		if !showDocument && !strings.Contains(msg, "brand new\nsecond line") {
			t.Fatalf("without showDocument the content belongs in the message: %q", msg)
		}
	}
}

func TestPlainClientSeesStartEndAndTheWholeAnswer(t *testing.T) {
	answer := "First line of the answer.\n\n- a point\n- another point\n" + strings.Repeat("more detail\n", 200)
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: answer})
	f := newFixture(t, map[string]string{"a.txt": "x\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Plain, nil)
	res := f.ask(map[string]any{"prompt": "explain", "wait": true})
	var start, end, shown string
	f.editor.Wait("the messages", func() bool {
		for _, m := range f.editor.Messages() {
			switch {
			case strings.HasPrefix(m, "agent-lsp: "+res.RunID+" started"):
				start = m
			case strings.HasPrefix(m, "agent-lsp: "+res.RunID+": Completed"):
				t.Errorf("a second message ends the run, replacing the answer in a client that shows one at a time: %q", m)
			case strings.Contains(m, "First line"):
				shown = m
				if i := strings.LastIndex(m, "\n\nCompleted · "); i >= 0 {
					end = m[i:]
				}
			}
		}
		return start != "" && end != "" && shown != ""
	})
	if !strings.Contains(shown, "First line of the answer.\n\n- a point\n- another point\n") {
		t.Fatalf("the answer lost its lines: %q", shown[:200])
	}
	i := strings.Index(shown, "The full answer: ")
	if i < 0 || len(shown) > 2500 {
		t.Fatalf("a long answer must be cut and name where the whole is (%d bytes): %q", len(shown), shown[max(0, len(shown)-300):])
	}
	path := strings.TrimSpace(strings.SplitN(shown[i+len("The full answer: "):], "\n", 2)[0])
	if data, err := os.ReadFile(path); err != nil || !strings.Contains(string(data), strings.TrimSpace(answer)) {
		t.Fatalf("the full answer at %q: %v", path, err)
	}
	iterationLogged := false
	for _, l := range f.editor.Logs() {
		iterationLogged = iterationLogged || strings.Contains(l, "["+res.RunID+"]") && strings.Contains(l, "Iteration 1/")
	}
	if !iterationLogged {
		t.Fatalf("iterations are not logged: %q", f.editor.Logs())
	}
}

// TestShowProposalSaysWhatChangesWhereNothingShowsDocuments: a client that
// shows no documents and does nothing with a command's result (ALE,
// vim-lsp) gets a message naming each file with its lines added and
// removed, and where the whole diff is; our own clients, which show the
// result's diff themselves, get no message on top.
func TestShowProposalSaysWhatChangesWhereNothingShowsDocuments(t *testing.T) {
	for _, own := range []bool{false, true} {
		srv := llmtest.NewOpenAIServer(t,
			llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"a.txt","content":"y\nz\n"}`), call("write_file", `{"path":"new.txt","content":"n\n"}`)}},
			llmtest.Turn{Text: "done"},
		)
		f := newFixture(t, map[string]string{"a.txt": "x\n"}, srv, nil)
		f.editor.Initialize(f.root, servertest.Caps{PromptInput: own}, nil)
		res := f.ask(map[string]any{"prompt": "change", "wait": true})
		before := len(f.editor.Messages())
		var shown struct {
			Diff  string `json:"diff"`
			Shown bool   `json:"shown"`
		}
		if err := f.editor.Command(server.CommandShowProposal, map[string]any{"id": res.ProposalID}, &shown); err != nil || shown.Shown || shown.Diff == "" {
			t.Fatalf("own client %v: %v %+v", own, err, shown)
		}
		if own {
			if got := f.editor.Messages()[before:]; len(got) != 0 {
				t.Errorf("our own client got a message on top of the result: %q", got)
			}
			continue
		}
		var msg string
		f.editor.Wait("the proposal's message", func() bool {
			for _, m := range f.editor.Messages()[before:] {
				if strings.HasPrefix(m, "agent-lsp: "+res.ProposalID+": ") {
					msg = m
				}
			}
			return msg != ""
		})
		// The summary, then the diff itself (a client with a preview
		// window shows it), then where the whole is.
		if !strings.Contains(msg, "2 file(s) changed:\n  a.txt +2 -1\n  new.txt +1 -0\n\n"+strings.TrimRight(shown.Diff, "\n")+"\n\nThe whole diff: ") {
			t.Fatalf("the message: %q", msg)
		}
		path := strings.TrimPrefix(msg[strings.Index(msg, "The whole diff: "):], "The whole diff: ")
		if data, err := os.ReadFile(path); err != nil || string(data) != shown.Diff {
			t.Fatalf("the diff file %q: %v", path, err)
		}
	}
}

// TestASelectionIsDescribedByTheLinesItCovers: a selection of whole lines
// ends at character 0 of the next line (Neovim's linewise visual mode, VS
// Code's line selection); that next line is not part of it.
func TestASelectionIsDescribedByTheLinesItCovers(t *testing.T) {
	for _, c := range []struct {
		start, end [2]int
		want       string
	}{
		{[2]int{1, 0}, [2]int{2, 0}, " (line 2 selected)\n\n```\n     2\tb\n```"},
		{[2]int{1, 0}, [2]int{3, 0}, " (lines 2-3 selected)\n\n```\n     2\tb\n     3\tc\n```"},
		{[2]int{1, 0}, [2]int{2, 1}, " (lines 2-3 selected)\n\n```\n     2\tb\n     3\tc\n```"},
		{[2]int{1, 0}, [2]int{1, 1}, " (line 2 selected)\n\n```\n     2\tb\n```"},
	} {
		srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "ok"})
		f := newFixture(t, map[string]string{"a.txt": "a\nb\nc\nd\n"}, srv, nil)
		f.editor.Initialize(f.root, servertest.Caps{}, nil)
		f.ask(map[string]any{"prompt": "explain", "wait": true, "uri": string(f.uri("a.txt")),
			"range": map[string]any{"start": map[string]any{"line": c.start[0], "character": c.start[1]}, "end": map[string]any{"line": c.end[0], "character": c.end[1]}}})
		if asked := llmtest.LastUserText(srv.Requests()[0]); !strings.HasSuffix(asked, "File: a.txt"+c.want) {
			t.Errorf("%v-%v: the model was asked %q, want it to end %q", c.start, c.end, asked, c.want)
		}
	}
}

// TestPlainClientIsShownAStepNowAndThen: a client without work-done
// progress (ALE drops the log) is shown a run's step as a message once a
// while has passed since the last: the model thinks 2.5 s before its second
// call, whose step is shown; the quick steps are not each shown.
func TestPlainClientIsShownAStepNowAndThen(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("read_file", `{"path":"a.txt"}`)}},
		llmtest.Turn{Delay: 2500 * time.Millisecond, Calls: []llmtest.Call{call("read_file", `{"path":"b.txt"}`)}},
		llmtest.Turn{Text: "Read both."},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Plain, nil)
	res := f.ask(map[string]any{"prompt": "read them", "wait": true})
	var steps []string
	for _, m := range f.editor.Messages() {
		if strings.HasPrefix(m, "agent-lsp: "+res.RunID+": Iteration") {
			steps = append(steps, m)
		}
	}
	if !slices.Contains(steps, "agent-lsp: "+res.RunID+": Iteration 2/10 · Read b.txt") || len(steps) > 2 {
		t.Fatalf("the steps shown: %q", steps)
	}
}
