package server_test

import (
	"slices"
	"testing"

	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// helixChange sends a didChange that replaces the whole line 0 of u,
// "\n" at version 0, with text, at version.
func helixChange(f *fixture, u uri.URI, version int32, old, text string) {
	f.editor.Notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": u, "version": version},
		"contentChanges": []any{map[string]any{
			"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": len(old)}}, "text": text}},
	})
}

// instructionTitles are the titles of the code actions on line 0 of u.
func instructionTitles(t testing.TB, f *fixture, u uri.URI) []string {
	var titles []string
	for _, a := range codeActions(t, f, map[string]any{"textDocument": map[string]any{"uri": u},
		"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}, "context": map[string]any{"diagnostics": []any{}}}) {
		titles = append(titles, a.Title)
	}
	return titles
}

// TestHelixTypingAfterASkippedVersionIsReadAtOnce: every Helix skips a
// version after a completion preview. The change after the skip is read
// at once — the code actions asked right after it list what it typed —
// by Helix 25.01, which may reorder its changes, and by 25.07.
func TestHelixTypingAfterASkippedVersionIsReadAtOnce(t *testing.T) {
	for _, version := range []string{"25.01.1", "25.07.1"} {
		t.Run(version, func(t *testing.T) {
			f := newFixture(t, map[string]string{"a.py": "\n"}, nil, nil)
			f.editor.Initialize(f.root, servertest.Caps{Name: "helix", Version: version}, nil)
			u := f.uri("a.py")
			f.editor.Open(u, "\n")
			helixChange(f, u, 2, "", "# AGENT: tidy") // version 1 was a completion preview
			helixChange(f, u, 3, "# AGENT: tidy", "# AGENT: tidy up")
			if titles := instructionTitles(t, f, u); !slices.Contains(titles, "Agent: tidy up") {
				t.Fatalf("the code actions right after the changes: %q", titles)
			}
		})
	}
}
