//go:build unix

package apply

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools"
)

func TestCheckRefusesWhatChangedSinceTheAgentRead(t *testing.T) {
	root := t.TempDir()
	abs := filepath.Join(root, "a.txt")
	for _, c := range []struct {
		name    string
		disk    *string // nil: no file
		change  tools.Change
		refused string
	}{
		{"unchanged", ptr("a\n"), tools.Change{Path: "a.txt", AbsPath: abs, Original: "a\n", New: "b\n", Existed: true}, ""},
		{"changed", ptr("edited\n"), tools.Change{Path: "a.txt", AbsPath: abs, Original: "a\n", New: "b\n", Existed: true}, "changed while"},
		{"deleted", nil, tools.Change{Path: "a.txt", AbsPath: abs, Original: "a\n", New: "b\n", Existed: true}, "deleted while"},
		{"created", ptr("x\n"), tools.Change{Path: "a.txt", AbsPath: abs, New: "b\n"}, "created while"},
		{"new", nil, tools.Change{Path: "a.txt", AbsPath: abs, New: "b\n"}, ""},
	} {
		os.Remove(abs)
		if c.disk != nil {
			os.WriteFile(abs, []byte(*c.disk), 0o644)
		}
		err := Check(nil, c.change, OnDisk)
		if (c.refused == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.refused)) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.refused)
		}
	}
}

func TestWriteFileNeverWritesThroughALinkOrAFIFO(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	os.WriteFile(victim, []byte("original\n"), 0o644)
	os.Symlink(victim, filepath.Join(root, "link"))
	if err := WriteFile(filepath.Join(root, "link"), "pwned"); err == nil {
		t.Error("wrote through a symlink")
	}
	if data, _ := os.ReadFile(victim); string(data) != "original\n" {
		t.Errorf("the victim changed: %q", data)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err == nil {
		if err := WriteFile(filepath.Join(root, "fifo"), "x"); err == nil {
			t.Error("wrote into a FIFO")
		}
	}
	if err := WriteFile(filepath.Join(root, "sub", "new.txt"), "new\n"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "sub", "new.txt")); string(data) != "new\n" {
		t.Errorf("new file: %q", data)
	}
}

func ptr(s string) *string { return &s }
