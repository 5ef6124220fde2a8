package tools

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestResolveRefusesEscapes(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	writeTree(t, root, map[string]string{"src/a.go": "package a\n"})
	writeTree(t, outside, map[string]string{"secret.txt": "s3cret\n"})
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "src", "secret")); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"../x", "src/../../x", "/etc/passwd", filepath.Join(outside, "secret.txt"),
		"link/secret.txt", "link/new-file.txt", "src/secret",
	} {
		if _, _, err := w.Resolve(p); !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("Resolve(%q) = %v, want ErrOutsideWorkspace", p, err)
		}
	}
	for p, want := range map[string]string{
		"src/a.go": "src/a.go", "./src/../src/a.go": "src/a.go", filepath.Join(root, "src/a.go"): "src/a.go",
		"": ".", "new/dir/file.txt": "new/dir/file.txt",
	} {
		if _, rel, err := w.Resolve(p); err != nil || rel != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", p, rel, err, want)
		}
	}
}

func TestEscapesAreObservationsForEveryPathTool(t *testing.T) {
	root := t.TempDir()
	r, _ := newTestRegistry(t, root)
	before := snapshot(t, root)
	for tool, args := range map[string]map[string]any{
		"read_file":  {"path": "../../etc/passwd"},
		"list_files": {"path": "/"},
		"search":     {"pattern": "root", "path": "/etc"},
		"write_file": {"path": "../evil.txt", "content": "x"},
		"edit_file":  {"path": "/etc/hosts", "old_string": "localhost", "new_string": "x"},
	} {
		res := call(t, r, tool, args)
		if !res.IsError || !strings.Contains(res.Text, "outside the workspace") {
			t.Errorf("%s: %+v; want an outside-the-workspace error", tool, res)
		}
	}
	if !reflect.DeepEqual(before, snapshot(t, root)) {
		t.Fatal("workspace changed")
	}
}

func TestReadsSeeStagedThenBufferThenDisk(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "disk\n", "b.txt": "disk b\n"})
	resolvedRoot, _ := filepath.EvalSymlinks(root)
	overlay := mapOverlay{filepath.Join(resolvedRoot, "a.txt"): {text: "buffer\n", version: 7}}
	w, err := NewWorkspace(root, overlay)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := w.Read("a.txt")
	if f.Text != "buffer\n" || f.Source != FromBuffer || f.Version != 7 || !f.HasVersion {
		t.Fatalf("open buffer: %+v", f)
	}
	f, _ = w.Read("b.txt")
	if f.Text != "disk b\n" || f.Source != FromDisk || f.HasVersion {
		t.Fatalf("disk: %+v", f)
	}
	if _, err := w.Stage("a.txt", "staged\n"); err != nil {
		t.Fatal(err)
	}
	f, _ = w.Read("a.txt")
	if f.Text != "staged\n" || f.Source != FromStaged {
		t.Fatalf("staged: %+v", f)
	}
	changes := w.Changes()
	if len(changes) != 1 || changes[0].Original != "buffer\n" || changes[0].Version != 7 || !changes[0].HasVersion {
		t.Fatalf("change must remember the buffer it started from: %+v", changes)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(got) != "disk\n" {
		t.Fatalf("disk was written: %q", got)
	}
}

func TestProposalDiff(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"hello.py": "def greet():\n    return 'Hello'\n"})
	r, w := newTestRegistry(t, root)
	call(t, r, "edit_file", map[string]any{"path": "hello.py", "old_string": "'Hello'", "new_string": "'Hello, World!'"})
	call(t, r, "write_file", map[string]any{"path": "docs/README.md", "content": "# Docs\n"})
	// Writing a file back to what it was is no change at all.
	writeTree(t, root, map[string]string{"same.txt": "same\n"})
	call(t, r, "write_file", map[string]any{"path": "same.txt", "content": "same\n"})
	p := w.Proposal()
	want := `--- /dev/null
+++ b/docs/README.md
@@ -0,0 +1 @@
+# Docs
--- a/hello.py
+++ b/hello.py
@@ -1,2 +1,2 @@
 def greet():
-    return 'Hello'
+    return 'Hello, World!'
`
	if got := p.Diff(); got != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
	}
	if len(p.Changes) != 2 || p.Changes[0].Existed || !p.Changes[1].Existed {
		t.Fatalf("changes: %+v", p.Changes)
	}
}
