package apply

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools"
)

func TestSplitLeavesOutSensitiveFilesUnlessAsked(t *testing.T) {
	changes := []tools.Change{{Path: "main.go"}, {Path: ".github/workflows/ci.yml"}, {Path: "AGENTS.md"}}
	accepted, leftOut := Split(changes, false)
	if len(accepted) != 1 || accepted[0].Path != "main.go" || len(leftOut) != 2 {
		t.Errorf("without sensitive: accepted %v, left out %v", accepted, leftOut)
	}
	if accepted, leftOut := Split(changes, true); len(accepted) != 3 || leftOut != nil {
		t.Errorf("with sensitive: accepted %v, left out %v", accepted, leftOut)
	}
	described := DescribeSensitive(leftOut)
	if !strings.Contains(described, ".github/workflows/ci.yml (") || !strings.Contains(described, "AGENTS.md (") {
		t.Errorf("DescribeSensitive: %q", described)
	}
	if d := DescribeSensitive([]tools.Change{{Path: "x\n.vscode/settings.json"}}); strings.Contains(d, "\n") {
		t.Errorf("a newline in a path reached the description: %q", d)
	}
}

// Write checks every file before it writes one, and a failure midway
// names what was written before it.
func TestWriteChecksAllThenNamesWhatWasWritten(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")
	os.WriteFile(a, []byte("a\n"), 0o644)
	os.WriteFile(b, []byte("edited by the user\n"), 0o644)
	changes := []tools.Change{
		{Path: "a.txt", AbsPath: a, Original: "a\n", New: "A\n", Existed: true},
		{Path: "b.txt", AbsPath: b, Original: "b\n", New: "B\n", Existed: true},
	}
	written, err := Write(nil, changes, OnDisk, ToDisk)
	if !errors.Is(err, ErrNothingWritten) || written != nil || !strings.Contains(err.Error(), "b.txt changed while") {
		t.Fatalf("written %v, err %v", written, err)
	}
	if data, _ := os.ReadFile(a); string(data) != "a\n" {
		t.Fatalf("a.txt written though b.txt was refused: %q", data)
	}
	os.WriteFile(b, []byte("b\n"), 0o644)
	failing := func(c tools.Change) error {
		if c.Path == "b.txt" {
			return errors.New("disk full")
		}
		return ToDisk(c)
	}
	written, err = Write(nil, changes, OnDisk, failing)
	if err == nil || errors.Is(err, ErrNothingWritten) || !strings.Contains(err.Error(), "b.txt not written (disk full); written before it: a.txt") {
		t.Fatalf("written %v, err %v", written, err)
	}
	if data, _ := os.ReadFile(a); string(data) != "A\n" {
		t.Fatalf("a.txt: %q", data)
	}
}
