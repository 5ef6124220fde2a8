package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// editAction is a code action that carries an edit.
type editAction struct {
	Title   string                  `json:"title"`
	Edit    *protocol.WorkspaceEdit `json:"edit"`
	Command *struct {
		Command string `json:"command"`
	} `json:"command"`
}

func proposalActions(t *testing.T, f *fixture, u uri.URI) []editAction {
	t.Helper()
	var raw []json.RawMessage
	params := map[string]any{
		"textDocument": map[string]any{"uri": u},
		"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}},
		"context":      map[string]any{"diagnostics": []any{}},
	}
	if err := f.editor.Call("textDocument/codeAction", params, &raw); err != nil {
		t.Fatal(err)
	}
	var out []editAction
	for _, r := range raw {
		var a editAction
		if err := protocol.Unmarshal(r, &a); err != nil { // the edit's document changes are a union
			t.Fatal(err)
		}
		if strings.Contains(a.Title, "agent proposal") {
			out = append(out, a)
		}
	}
	return out
}

type proposalStates struct {
	Proposals []struct {
		ID    string `json:"id"`
		State string `json:"state"`
	} `json:"proposals"`
}

func (f *fixture) proposalState(id string) string {
	f.t.Helper()
	var st proposalStates
	if err := f.editor.Command(server.CommandStatus, nil, &st); err != nil {
		f.t.Fatal(err)
	}
	for _, p := range st.Proposals {
		if p.ID == id {
			return p.State
		}
	}
	return ""
}

// TestAClientWithoutApplyEditAppliesFromTheCodeAction: ALE declares
// workspace.applyEdit false. The proposal's Apply action carries the edit
// itself (no command, which ALE would run instead of the edit); the files
// that need explicit approval come only in a second action naming them;
// agent.applyProposal says where to apply instead of sending what the
// client said it cannot take; the edit brings the new file's text to a
// buffer of its own (ALE edits a missing file in a new buffer: one empty
// line, replaced), and the title says it is not created until written; and
// once the buffers hold the edit the server calls the proposal applied and
// keeps its notes.
func TestAClientWithoutApplyEditAppliesFromTheCodeAction(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{
			call("write_file", `{"path":"a.txt","content":"A\n"}`),
			call("write_file", `{"path":"new.txt","content":"fresh\n"}`),
			call("write_file", `{"path":".vscode/settings.json","content":"{}\n"}`),
			call("remember", `{"note":"a.txt is upper case now"}`),
		}},
		llmtest.Turn{Text: "Done."},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n", ".vscode/settings.json": "{\"x\":1}\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{NeverAnswer: true, NoApplyEdit: true, NoResourceOperations: true}, nil)
	u := f.uri("a.txt")
	f.editor.Open(u, "a\n")
	res := f.ask(map[string]any{"prompt": "upper", "wait": true})
	if res.State != "completed" || f.editor.EditCount() != 0 {
		t.Fatalf("%+v; %d applyEdit sent to a client that cannot take it", res, f.editor.EditCount())
	}
	actions := proposalActions(t, f, u)
	var titles []string
	for _, a := range actions {
		titles = append(titles, a.Title)
	}
	want := []string{
		"Apply agent proposal (1 file(s), proposal-1; 1 new file(s) in buffers, not created until you write them)",
		"Apply agent proposal with its sensitive files (proposal-1): .vscode/settings.json (editor configuration (VS Code tasks and settings))",
		"Show agent proposal (proposal-1)",
		"Discard agent proposal (proposal-1)",
	}
	if !slices.Equal(titles, want) {
		t.Fatalf("actions:\n%s\nwant:\n%s", strings.Join(titles, "\n"), strings.Join(want, "\n"))
	}
	apply := actions[0]
	if apply.Edit == nil || apply.Command != nil {
		t.Fatalf("the Apply action must carry the edit and no command: %+v", apply)
	}
	if edits := toJSON(apply.Edit); strings.Contains(edits, "settings.json") || !strings.Contains(edits, "A\\n") ||
		!strings.Contains(edits, `new.txt":[{"range":{"start":{"line":0,"character":0},"end":{"line":1,"character":0}},"newText":"fresh\n"}]`) {
		t.Fatalf("the edit: %s", edits)
	}
	if !strings.Contains(toJSON(actions[1].Edit), "settings.json") {
		t.Fatalf("the sensitive action's edit: %s", toJSON(actions[1].Edit))
	}
	err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": "proposal-1"}, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot take workspace/applyEdit: pick \"Apply agent proposal\" for proposal-1 from the code actions") {
		t.Fatalf("agent.applyProposal: %v", err)
	}
	if st := f.proposalState("proposal-1"); st != "pending" {
		t.Fatalf("after the refused command: %s", st)
	}
	// The user picks the action: the editor applies its edit, as ALE does,
	// the missing file in a new buffer (one empty line).
	f.editor.Open(f.uri("new.txt"), "\n")
	if err := f.editor.ApplyEdit(*apply.Edit); err != nil {
		t.Fatal(err)
	}
	toolstest.Poll(t, "the proposal applied", func() bool { return f.proposalState("proposal-1") == "applied" })
	if b, _ := f.editor.Buffer(u); b.Text != "A\n" || f.disk(".vscode/settings.json") != "{\"x\":1}\n" {
		t.Fatalf("buffer %q, settings %q", b.Text, f.disk(".vscode/settings.json"))
	}
	msgs := strings.Join(f.editor.Messages(), "\n---\n")
	for _, want := range []string{"proposal-1 is applied: the editor holds its changes"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("the messages lack %q:\n%s", want, msgs)
		}
	}
	if st := f.status(); !slices.Contains(st.Notes, "a.txt is upper case now") {
		t.Errorf("the notes were not kept with the applied proposal: %+v", st)
	}
	if n := len(proposalActions(t, f, u)); n != 0 {
		t.Fatalf("%d proposal actions left after it was applied", n)
	}
}

// TestAnUnansweredApplyEditEnds: a client that takes applyEdit but never
// answers holds the apply only as long as approval_timeout_s; if its
// buffers then hold the edit (ALE applies and says nothing) the proposal is
// applied, and otherwise it stays pending and the user is told so.
func TestAnUnansweredApplyEditEnds(t *testing.T) {
	for _, c := range []struct {
		name  string
		caps  servertest.Caps
		state string
	}{
		{"applied without an answer", servertest.Caps{NeverAnswer: true, UserSettings: true}, "applied"},
		{"neither applied nor answered", servertest.Caps{IgnoreEdits: true, UserSettings: true}, "pending"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t,
				llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"a.txt","content":"A\n"}`)}},
				llmtest.Turn{Text: "Done."},
			)
			f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, nil)
			f.editor.Initialize(f.root, c.caps, map[string]any{"approvalTimeoutS": 1})
			f.editor.Open(f.uri("a.txt"), "a\n")
			f.ask(map[string]any{"prompt": "upper", "wait": true})
			var out struct {
				Applied bool `json:"applied"`
			}
			err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": "proposal-1"}, &out)
			if st := f.proposalState("proposal-1"); st != c.state {
				t.Fatalf("state %s, want %s (%v)", st, c.state, err)
			}
			if c.state == "applied" {
				if err != nil || !out.Applied {
					t.Fatalf("%+v %v", out, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "no answer within 1s") {
				t.Fatalf("the command's error: %v", err)
			}
			said := slices.ContainsFunc(f.editor.Messages(), func(m string) bool {
				return strings.Contains(m, "gave no answer to proposal-1's edit within 1s (approval_timeout_s): it stays pending")
			})
			if !said {
				t.Fatalf("messages %q", f.editor.Messages())
			}
		})
	}
}

// TestAClientThatDeclaresNothingGetsEveryFeature: empty capabilities — no
// applyEdit, no prompts, no progress, no documents — still reach the
// answer, the approval and the applied proposal through code actions and
// messages.
func TestAClientThatDeclaresNothingGetsEveryFeature(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("execute_command", `{"command":"printf checked"}`)}},
		llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"a.txt","content":"A\n"}`)}},
		llmtest.Turn{Text: "Upper-cased a.txt."},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{DeclareNothing: true, NeverAnswer: true}, nil)
	u := f.uri("a.txt")
	f.editor.Open(u, "a\n")
	f.ask(map[string]any{"prompt": "upper", "uri": string(u)})
	var allow []action
	toolstest.Poll(t, "the question's code actions", func() bool { allow = questionActions(t, f, string(u)); return len(allow) == 3 })
	if err := f.editor.Command(allow[1].Command.Command, allow[1].Command.Arguments[0], nil); err != nil { // Allow once
		t.Fatal(err)
	}
	toolstest.Poll(t, "the answer", func() bool {
		return slices.ContainsFunc(f.editor.Messages(), func(m string) bool { return strings.Contains(m, "Upper-cased a.txt.") })
	})
	if !strings.Contains(toJSON(srv.Requests()[1]["messages"]), "checked") {
		t.Fatal("the allowed command's output did not reach the model")
	}
	actions := proposalActions(t, f, u)
	if len(actions) == 0 || actions[0].Edit == nil {
		t.Fatalf("no Apply action carrying the edit: %+v", actions)
	}
	if err := f.editor.ApplyEdit(*actions[0].Edit); err != nil {
		t.Fatal(err)
	}
	toolstest.Poll(t, "the proposal applied", func() bool { return f.proposalState("proposal-1") == "applied" })
	if len(f.editor.Shown()) != 0 || f.editor.EditCount() != 0 {
		t.Fatalf("sent what the client did not declare: %d documents, %d edits", len(f.editor.Shown()), f.editor.EditCount())
	}
}

// TestAnEditAnsweredWithAnErrorKeepsTheProposalPending: the client's
// error is said in plain words and nothing is lost.
func TestAnEditAnsweredWithAnErrorKeepsTheProposalPending(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"a.txt","content":"A\n"}`)}},
		llmtest.Turn{Text: "Done."},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{EditError: true}, nil)
	f.editor.Open(f.uri("a.txt"), "a\n")
	f.ask(map[string]any{"prompt": "upper", "wait": true})
	err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": "proposal-1"}, nil)
	if err == nil || !strings.Contains(err.Error(), "a buffer is read-only") {
		t.Fatalf("the command's error: %v", err)
	}
	if st := f.proposalState("proposal-1"); st != "pending" {
		t.Fatalf("state %s", st)
	}
	said := slices.ContainsFunc(f.editor.Messages(), func(m string) bool {
		return strings.Contains(m, "the editor answered proposal-1's edit with an error") && strings.Contains(m, "it stays pending")
	})
	if !said {
		t.Fatalf("messages %q", f.editor.Messages())
	}
	if b, _ := f.editor.Buffer(f.uri("a.txt")); b.Text != "a\n" {
		t.Fatalf("buffer %q", b.Text)
	}
}
