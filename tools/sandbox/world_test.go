package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Preview builds the World of a command in the workspace with stand-ins
// for a run's dirs, names them, and leaves none of them behind.
func TestPreviewNamesItsStandInsAndRemovesThem(t *testing.T) {
	root := t.TempDir()
	w, placeholders, err := Preview(Probe(), root, Spec{Command: "true", Env: []string{"PATH=/usr/bin", "OPENAI_API_KEY=canary"}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	w.Format(&b, placeholders...)
	text := b.String()
	if !strings.Contains(text, "$VIEW") || strings.Contains(text, "canary") || !strings.Contains(text, root) {
		t.Errorf("the preview:\n%s", text)
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "agent-lsp-preview-"+ownTag()+"-*")); len(left) > 0 {
		t.Errorf("Preview left %v", left)
	}
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/bash": "/usr/bin/bash", "-c": "-c", "": "''", "go test ./...": "'go test ./...'",
		"it's": `'it'\''s'`, "a\nb": `"a\nb"`, "$HOME": "'$HOME'",
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", in, got, want)
		}
	}
}

// A path under another placeholder's is named by the longer one.
func TestPlaceholdersTheLongestWins(t *testing.T) {
	w := World{Level: None, Argv: []string{"bash"}, Dir: "/tmp/v/copy", View: View{Root: "/ws", Copy: "/tmp/v/copy"}}
	var b strings.Builder
	w.Format(&b, Placeholder{"$TMP", "/tmp"}, Placeholder{"$VIEW", "/tmp/v"})
	if !strings.Contains(b.String(), "dir $VIEW/copy\n") {
		t.Errorf("got:\n%s", b.String())
	}
}
