package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestWhatWasAppliedIsWhatTheEditorDid: a client answers workspace/applyEdit
// "applied", and the server reads what it did from the files themselves,
// in buffers and on disk, whatever path wrote them: an edit in a buffer
// (didChange), a file written whole on disk while the server holds its
// buffer as it was (VS Code's extension, for a file no editor shows: no
// didChange), a new file created on disk, a didChange sent after the
// answer (Neovim's debounce) — applied; nothing changed anywhere after a
// client asked to confirm the edit (coc.nvim's answer to a refused
// confirmation) — pending, and said why.
func TestWhatWasAppliedIsWhatTheEditorDid(t *testing.T) {
	for _, c := range []struct {
		name    string
		caps    servertest.Caps
		create  bool // the proposal creates new.txt instead of editing a.txt
		refuse  bool
		applied bool
	}{
		{name: "edit in a buffer", applied: true},
		{name: "whole write", caps: servertest.Caps{WritesWhole: true}, applied: true},
		{name: "create", caps: servertest.Caps{WritesWhole: true}, create: true, applied: true},
		{name: "didChange after the answer", caps: servertest.Caps{ChangesLater: true}, applied: true},
		{name: "refused in coc", caps: servertest.Caps{Name: "coc.nvim", NewBufferLine: true}, refuse: true}, // coc declares annotations
	} {
		for _, annotated := range []bool{false, true} {
			if c.refuse && !annotated {
				continue // a client that confirms nothing applies what it says it applied
			}
			c.caps.Annotations = annotated // the edit is then sent as the run ends, as to VS Code
			t.Run(fmt.Sprintf("%s/annotated=%v", c.name, annotated), func(t *testing.T) {
				edit := call("edit_file", `{"path":"a.txt","old_string":"one","new_string":"uno"}`)
				file, want := "a.txt", "uno\ntwo\n"
				if c.create {
					edit = call("write_file", `{"path":"new.txt","content":"nuevo\n"}`)
					file, want = "new.txt", "nuevo\n"
				}
				srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Calls: []llmtest.Call{edit}}, llmtest.Turn{Text: "translated"})
				f := newFixture(t, map[string]string{"a.txt": "one\ntwo\n"}, srv, nil)
				f.editor.Initialize(f.root, c.caps, nil)
				f.editor.Open(f.uri("a.txt"), "one\ntwo\n") // the server holds its buffer, whatever writes the file
				f.editor.SetRefuseConfirmed(c.refuse)
				res := f.ask(map[string]any{"prompt": "translate", "wait": true})
				var out struct {
					Applied bool   `json:"applied"`
					Reason  string `json:"reason"`
				}
				if annotated {
					f.editor.Wait("the edit sent", func() bool { return f.editor.EditCount() == 1 })
					toolstest.Poll(t, "the answer settled", func() bool { return f.proposalState(res.ProposalID) != "applying" })
				} else if err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": res.ProposalID}, &out); err != nil {
					t.Fatal(err)
				}
				state := f.proposalState(res.ProposalID)
				if !c.applied {
					if state != "pending" || !annotated && (out.Applied || !strings.Contains(out.Reason, "the editor changed none of its files")) {
						t.Fatalf("nothing changed, yet: %+v, %s", out, state)
					}
					return
				}
				if state != "applied" || !annotated && !out.Applied {
					t.Fatalf("the editor applied it, yet: %+v, %s", out, state)
				}
				if got := f.disk(file); c.caps.WritesWhole && got != want {
					t.Fatalf("%s on disk: %q, want %q", file, got, want)
				}
			})
		}
	}
}
