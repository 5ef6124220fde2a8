package tools

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// What the prompt and execute_command's description say commands see is
// what they see: the editor's unsaved buffers, the staged changes over them.

const (
	addGood = "package small\n\nfunc Add(a, b int) int { return a + b }\n"
	addBad  = "package small\n\nfunc Add(a, b int) int { return a - b }\n"
	addTest = "package small\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) != 5\")\n\t}\n}\n"
)

func TestCommandsRunOnTheEditorsUnsavedBuffers(t *testing.T) {
	needSandbox(t)
	for _, c := range []struct {
		name, disk, buffer string
		pass               bool
	}{
		{"fixed in the buffer", addBad, addGood, true},
		{"broken in the buffer", addGood, addBad, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, map[string]string{"go.mod": "module small\n\ngo 1.22\n", "add.go": c.disk, "add_test.go": addTest})
			overlay := mapOverlay{}
			overlay[filepath.Join(root, "add.go")] = struct {
				text    string
				version int32
			}{c.buffer, 7}
			w, err := NewWorkspace(root, overlay)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			w.SetSandbox(SandboxOptions{Cache: filepath.Join(sandboxTestDir(), "shared-cache")})
			out, err := w.RunCommand(context.Background(), "go test -count=1 ./...", 2*time.Minute, 100_000)
			if err != nil {
				t.Fatal(err)
			}
			if passed := out.ExitCode == 0; passed != c.pass {
				t.Errorf("go test passed %v, want %v (it ran on disk, not the buffer?):\n%s", passed, c.pass, out.Text())
			}
			if !strings.Contains(out.Text(), "[ran with the editor's unsaved text of add.go]") {
				t.Errorf("the result does not say the unsaved buffer was included:\n%s", out.Text())
			}
			// A staged change wins over the buffer.
			if _, err := w.Stage("add.go", addGood+"\n// staged\n"); err != nil {
				t.Fatal(err)
			}
			out, _ = w.RunCommand(context.Background(), "go test -count=1 ./...", 2*time.Minute, 100_000)
			if out.ExitCode != 0 || strings.Contains(out.Text(), "unsaved text of add.go") {
				t.Errorf("the staged file did not win over the buffer:\n%s", out.Text())
			}
		})
	}
}

func TestWhatCommandsSeeIsStatedOnceAndHolds(t *testing.T) {
	if sandbox.Probe().Level == sandbox.None {
		t.Skip("no OS sandbox here")
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "on disk\n", "b.txt": "on disk\n"})
	overlay := mapOverlay{}
	overlay[filepath.Join(root, "b.txt")] = struct {
		text    string
		version int32
	}{"unsaved\n", 3}
	w, err := NewWorkspace(root, overlay)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	reg := NewDefaultRegistry(w, NewPolicy(DefaultAllowlist), &scriptedApprover{decision: AllowOnce}, CommandLimits{})
	tool, _ := reg.Lookup("execute_command")
	desc := tool.Description()
	if !strings.Contains(desc, CommandsSee) {
		t.Errorf("execute_command's description does not state what commands see:\n%s", desc)
	}
	call(t, reg, "write_file", map[string]any{"path": "a.txt", "content": "staged\n"})
	out := call(t, reg, "execute_command", map[string]any{"command": "cat a.txt b.txt; echo x > c.txt"}).Text
	if !strings.Contains(out, "staged\nunsaved\n") {
		t.Errorf("the command did not see the staged file and the unsaved buffer:\n%s", out)
	}
	if out := call(t, reg, "execute_command", map[string]any{"command": "cat c.txt"}).Text; !strings.Contains(out, "x\n") {
		t.Errorf("what a command wrote is not there for the next one:\n%s", out)
	}
}
