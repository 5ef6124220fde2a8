package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// TestEditsUseTheClientsURI over the LSP wire: a client that opened a file
// by another path to it (through a symlink, as macOS's /tmp is
// /private/tmp) gets the proposal's edit of that file under the URI it
// opened, so it finds its buffer; a new file gets the server's spelling.
func TestEditsUseTheClientsURI(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"main.go","old_string":"unsaved()","new_string":"renamed()"}`)}},
		llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"new.go","content":"package main\n"}`)}},
		llmtest.Turn{Text: "done"},
	)
	f := newFixture(t, map[string]string{"main.go": "package main\n\nfunc main() { saved() }\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Annotations: true}, nil)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(f.root, link); err != nil {
		t.Fatal(err)
	}
	own := uri.File(filepath.Join(link, "main.go"))
	f.editor.Open(own, "package main\n\nfunc main() { unsaved() }\n")
	f.ask(map[string]any{"prompt": "rename the call", "uri": own})
	f.editor.Wait("the proposal as an applyEdit", func() bool { return f.editor.EditCount() == 1 })
	f.editor.Wait("the buffer to change", func() bool { b, _ := f.editor.Buffer(own); return strings.Contains(b.Text, "renamed()") })
	var got []string
	for _, dc := range f.editor.Edits()[0].Edit.DocumentChanges {
		switch c := dc.(type) {
		case *protocol.TextDocumentEdit:
			got = append(got, string(c.TextDocument.URI))
		case *protocol.CreateFile:
			got = append(got, "create "+string(c.URI))
		}
	}
	want := []string{string(own), "create " + string(f.uri("new.go")), string(f.uri("new.go"))}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("edited URIs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
