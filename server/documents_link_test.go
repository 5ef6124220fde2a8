package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// TestAnOpenDocumentKeepsItsPathWhenItsLinkMoves opens a file through a
// symlink, then points the link elsewhere (a checkout switching it): the
// document is where it was opened, so typing in it still lands there. The
// link is resolved once, at didOpen, not on every keystroke.
func TestAnOpenDocumentKeepsItsPathWhenItsLinkMoves(t *testing.T) {
	f := newFixture(t, map[string]string{"a.go": "package a\n", "b.go": "package b\n"}, nil, nil)
	link := filepath.Join(f.root, "link.go")
	if err := os.Symlink(filepath.Join(f.root, "a.go"), link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	f.editor.Initialize(f.root, servertest.Plain, nil)
	u := f.uri("link.go")
	f.editor.Open(u, "package a\n")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.root, "b.go"), link); err != nil {
		t.Fatal(err)
	}
	f.editor.Type(u, "package a\n// AGENT: say hi\n")
	var titles []string
	for _, a := range codeActions(t, f, map[string]any{"textDocument": map[string]any{"uri": u},
		"range": span(1, 0, 1, 0), "context": map[string]any{"diagnostics": []any{}}}) {
		titles = append(titles, a.Title)
	}
	if !strings.Contains(strings.Join(titles, "|"), "Agent: say hi") {
		t.Fatalf("the change was lost: %q", titles)
	}
}
