package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCommandsSeeStagedChangesInASandbox(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore": "build/\n", "main.go": "package main\n", "build/big.bin": "ignored",
		"sub/data.txt": "original\n",
	})
	before := snapshot(t, root)
	a := &scriptedApprover{decision: AllowOnce}
	r, w := newTestRegistry(t, root)
	r, _ = NewRegistry(append(r.Tools()[:5], NewExecuteCommand(w, NewPolicy(DefaultAllowlist), a, CommandLimits{}))...)

	// Nothing staged yet: a command that writes still cannot touch the user's files.
	res := call(t, r, "execute_command", map[string]any{"command": "echo scribble > main.go; sort -o sub/data.txt main.go; cat main.go"})
	if !strings.HasPrefix(res.Text, "scribble\n") {
		t.Fatalf("the command's own writes are not visible to it:\n%s", res.Text)
	}
	call(t, r, "edit_file", map[string]any{"path": "sub/data.txt", "old_string": "original", "new_string": "edited by the agent"})
	call(t, r, "write_file", map[string]any{"path": "new.txt", "content": "brand new\n"})
	res = call(t, r, "execute_command", map[string]any{"command": "cat sub/data.txt new.txt"})
	if !strings.HasPrefix(res.Text, "edited by the agent\nbrand new\n") {
		t.Fatalf("sandbox view:\n%s", res.Text)
	}
	// The agent takes its edit back: the sandbox follows.
	call(t, r, "write_file", map[string]any{"path": "sub/data.txt", "content": "original\n"})
	res = call(t, r, "execute_command", map[string]any{"command": "cat sub/data.txt"})
	if !strings.HasPrefix(res.Text, "original\n") {
		t.Fatalf("sandbox not synced: %s", res.Text)
	}
	var dir string
	switch v := currentView(w).(type) {
	case *overlayView:
		dir = v.dir
	case copyView:
		dir = v.Dir
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("sandbox %s not removed", dir)
	}
	if !reflect.DeepEqual(before, snapshot(t, root)) {
		t.Fatal("the user's files changed")
	}
}

func TestSandboxCopiesTrackedAndUntrackedNotIgnoredGitFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{".gitignore": "*.log\n", "tracked.go": "x", "untracked.go": "y", "debug.log": "z"})
	for _, args := range [][]string{{"init", "-q"}, {"add", "tracked.go", ".gitignore"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	w, _ := NewWorkspace(root, nil)
	sb, err := NewSandbox(context.Background(), w, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for name, want := range map[string]bool{"tracked.go": true, "untracked.go": true, ".gitignore": true, "debug.log": false} {
		if _, err := os.Stat(filepath.Join(sb.Dir, name)); (err == nil) != want {
			t.Errorf("%s in sandbox: %v, want %v", name, err == nil, want)
		}
	}
	// Never a hard link: writing in the sandbox leaves the original alone.
	os.WriteFile(filepath.Join(sb.Dir, "tracked.go"), []byte("changed"), 0o644)
	if data, _ := os.ReadFile(filepath.Join(root, "tracked.go")); string(data) != "x" {
		t.Fatal("the sandbox shares the user's file")
	}
}

// The copy is listed from the index and the ignore files, never by running
// git: a hostile repository's core.fsmonitor would run on the host. Tracked
// files stay in even when ignored; an index entry under a directory since
// swapped for a symlink to elsewhere stays out.
func TestSandboxListsFilesWithoutRunningGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root, outside := t.TempDir(), t.TempDir()
	writeTree(t, root, map[string]string{".gitignore": "*.gen\n", "vendored.gen": "tracked", "skip.gen": "ignored",
		"main.go": "x", "d/secret": "mine"})
	writeTree(t, outside, map[string]string{"secret": "the user's"})
	for _, args := range [][]string{{"init", "-q"}, {"add", "-f", "vendored.gen", "main.go", "d/secret"}} {
		git(t, root, args...)
	}
	if err := os.RemoveAll(filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	canary := filepath.Join(outside, "fsmonitor-ran")
	git(t, root, "config", "core.fsmonitor", "touch "+canary+"; false")

	w, _ := NewWorkspace(root, nil)
	sb, err := NewSandbox(context.Background(), w, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if _, err := os.Stat(canary); err == nil {
		t.Error("making the copy ran the repository's core.fsmonitor")
	}
	for name, want := range map[string]bool{"vendored.gen": true, "main.go": true, ".gitignore": true, "skip.gen": false} {
		if _, err := os.Stat(filepath.Join(sb.Dir, name)); (err == nil) != want {
			t.Errorf("%s in sandbox: %v, want %v", name, err == nil, want)
		}
	}
	if data, err := os.ReadFile(filepath.Join(sb.Dir, "d", "secret")); err == nil {
		t.Errorf("copied through a symlinked directory: %q", data)
	}
}

// BenchmarkSandbox5000Files measures creating a sandbox of a 5,000-file
// workspace (about 4 KB each) and reports the bytes copied.
func BenchmarkSandbox5000Files(b *testing.B) {
	root := b.TempDir()
	body := strings.Repeat("// some source code of a typical size, line after line\n", 75)
	for i := range 5000 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%02d", i%50))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.go", i)), []byte(body), 0o644)
	}
	w, _ := NewWorkspace(root, nil)
	changes := []Change{{Path: "pkg00/f0000.go", New: "package changed\n", Existed: true}}
	var last *Sandbox
	for b.Loop() {
		sb, err := NewSandbox(context.Background(), w, changes)
		if err != nil {
			b.Fatal(err)
		}
		last = sb
		b.StopTimer()
		sb.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(last.Files), "files")
	b.ReportMetric(float64(last.BytesCopied)/(1<<20), "MB-copied")
	b.ReportMetric(float64(last.Reflinked), "reflinked")
}
