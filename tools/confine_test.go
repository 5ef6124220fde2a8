//go:build unix

package tools

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// noBlocking fails the test when f takes longer than a few seconds: a read that
// blocks on a FIFO would otherwise hang the whole test binary.
func noBlocking(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

func TestSearchAndListNeverGoThroughSymlinksOutOfTheWorkspace(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "needle: secret\n"})
	writeTree(t, root, map[string]string{"a.txt": "needle: inside\n", "sub/b.txt": "no\n"})
	for link, target := range map[string]string{
		"out.txt":     filepath.Join(outside, "secret.txt"),
		"sub/rel.txt": "../../" + filepath.Base(outside) + "/secret.txt",
		"dangling":    filepath.Join(root, "missing"),
		"alias.txt":   "a.txt",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := newTestRegistry(t, root)
	res := call(t, r, "search", map[string]any{"pattern": "needle"})
	if want := "a.txt:1: needle: inside\nalias.txt:1: needle: inside\n"; res.Text != want {
		t.Fatalf("search:\n%s\nwant:\n%s", res.Text, want)
	}
	res = call(t, r, "list_files", map[string]any{})
	if strings.Contains(res.Text, "out.txt") || strings.Contains(res.Text, "rel.txt") || strings.Contains(res.Text, "dangling") {
		t.Fatalf("list_files shows links out of the workspace:\n%s", res.Text)
	}
	if !strings.Contains(res.Text, "alias.txt\n") {
		t.Fatalf("list_files lost a link inside the workspace:\n%s", res.Text)
	}
	if res = call(t, r, "search", map[string]any{"pattern": "needle", "path": "out.txt"}); !res.IsError {
		t.Fatalf("search of a link out of the workspace: %+v", res)
	}
}

func TestSpecialFilesNeverBlock(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "needle\n", "sub/b.txt": "needle\n"})
	for _, fifo := range []string{"pipe", "sub/.gitignore"} {
		if err := syscall.Mkfifo(filepath.Join(root, fifo), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	ln, err := net.Listen("unix", filepath.Join(root, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r, w := newTestRegistry(t, root)
	noBlocking(t, "the tools", func() {
		for _, name := range []string{"pipe", "sock", "sub/.gitignore"} {
			res := call(t, r, "read_file", map[string]any{"path": name})
			if !res.IsError || !strings.Contains(res.Text, name+" is not a regular file") {
				t.Errorf("read_file %s: %+v", name, res)
			}
		}
		if res := call(t, r, "search", map[string]any{"pattern": "needle"}); res.Text != "a.txt:1: needle\nsub/b.txt:1: needle\n" {
			t.Errorf("search:\n%s", res.Text)
		}
		if res := call(t, r, "search", map[string]any{"pattern": "needle", "path": "pipe"}); res.IsError || res.Text != "no matches" {
			t.Errorf("search of the FIFO: %+v", res)
		}
		if res := call(t, r, "list_files", map[string]any{}); !strings.Contains(res.Text, "pipe\n") {
			t.Errorf("list_files:\n%s", res.Text)
		}
		if res := call(t, r, "write_file", map[string]any{"path": "pipe", "content": "x"}); !res.IsError || !strings.Contains(res.Text, "not a regular file") {
			t.Errorf("write_file over the FIFO: %+v", res)
		}
		if res := call(t, r, "edit_file", map[string]any{"path": "pipe", "old_string": "a", "new_string": "b"}); !res.IsError {
			t.Errorf("edit_file of the FIFO: %+v", res)
		}
	})
	if len(w.Changes()) != 0 {
		t.Fatalf("staged: %+v", w.Changes())
	}
}

func TestWritesUnderGitAreRefused(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{".git/config": "[core]\n", "sub/.git/HEAD": "ref\n", "a.txt": "a\n"})
	if err := os.Symlink(".git", filepath.Join(root, "gitlink")); err != nil {
		t.Fatal(err)
	}
	r, w := newTestRegistry(t, root)
	before := snapshot(t, root)
	for _, p := range []string{
		".git/config", ".GIT/config", ".Git/hooks/pre-commit", "sub/.git/hooks/pre-commit", "./.git/HEAD",
		"a/../.git/info/attributes", "gitlink/hooks/post-checkout", filepath.Join(root, ".git", "config"),
	} {
		res := call(t, r, "write_file", map[string]any{"path": p, "content": "#!/bin/sh\n"})
		if !res.IsError || !strings.Contains(res.Text, "writes under .git are refused") || !strings.Contains(res.Text, "hooks run code") {
			t.Errorf("write_file %s: %+v", p, res)
		}
	}
	res := call(t, r, "edit_file", map[string]any{"path": ".git/config", "old_string": "[core]", "new_string": "[core]\n\thooksPath = x"})
	if !res.IsError || !strings.Contains(res.Text, "writes under .git are refused") {
		t.Errorf("edit_file .git/config: %+v", res)
	}
	if _, err := w.Stage("sub/.git/config", "x"); !errors.Is(err, ErrGitDir) {
		t.Errorf("Stage: %v, want ErrGitDir", err)
	}
	if len(w.Changes()) != 0 || !reflect.DeepEqual(before, snapshot(t, root)) {
		t.Fatalf("something was staged or written: %+v", w.Changes())
	}
	for _, p := range []string{".gitignore", ".github/x.yml", "git/config", ".gitx/y", "my.git/z"} {
		if res := call(t, r, "write_file", map[string]any{"path": p, "content": "x\n"}); res.IsError {
			t.Errorf("write_file %s refused: %s", p, res.Text)
		}
	}
}

func TestSensitivePath(t *testing.T) {
	for p, want := range map[string]bool{
		".agent-lsp.toml": true, "sub/.agent-lsp.toml": true, ".mcp.json": true,
		".vscode/tasks.json": true, ".VSCode/settings.json": true, "pkg/.vscode/launch.json": true,
		".helix/languages.toml": true, ".zed/settings.json": true, ".idea/workspace.xml": true,
		".github/workflows/ci.yml": true, ".github/workflows/sub/x.yml": true, ".nvim.lua": true, ".nvimrc": true,
		".exrc": true, "a/.dir-locals.el": true, ".envrc": true, ".gitmodules": true, "x/.gitattributes": true,
		"AGENTS.md": true, "docs/agents.md": true,
		"main.go": false, ".github/CODEOWNERS": false, ".github/workflows": false, "vscode/x.json": false,
		"my.vscode/x": false, ".vscode": false, "AGENTS.md.bak": false, ".gitignore": false, "": false,
	} {
		why, got := SensitivePath(p)
		if got != want || got == (why == "") {
			t.Errorf("SensitivePath(%q) = %q, %v; want %v", p, why, got, want)
		}
	}
}

func TestProposalMarksSensitiveFiles(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{".vscode/tasks.json": "{}\n", "main.go": "package main\n"})
	r, w := newTestRegistry(t, root)
	res := call(t, r, "write_file", map[string]any{"path": ".vscode/tasks.json", "content": "{\"tasks\": []}\n"})
	if res.IsError || !strings.Contains(res.Text, "the user must approve it explicitly") {
		t.Fatalf("write_file: %+v", res)
	}
	call(t, r, "edit_file", map[string]any{"path": "main.go", "old_string": "main", "new_string": "app"})
	p := w.Proposal()
	want := `# ⚠ .vscode/tasks.json changes editor configuration (VS Code tasks and settings): apply only if you meant it
--- a/.vscode/tasks.json
+++ b/.vscode/tasks.json
@@ -1 +1 @@
-{}
+{"tasks": []}
--- a/main.go
+++ b/main.go
@@ -1 +1 @@
-package main
+package app
`
	if got := p.Diff(); got != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
	}
	if s := p.Sensitive(); len(s) != 1 || s[0].Path != ".vscode/tasks.json" {
		t.Fatalf("Sensitive: %+v", s)
	}
}
