package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestListAndSearchHonourGitignore(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore":           "node_modules/\n*.log\n/build\n!keep.log\n",
		"main.go":              "package main // TODO: main\n",
		"app.log":              "TODO: log\n",
		"keep.log":             "TODO: keep\n",
		"build/out.go":         "TODO: build\n",
		"sub/build/x.go":       "TODO: nested build dir is not anchored\n",
		"node_modules/m/i.js":  "TODO: dep\n",
		"sub/.gitignore":       "gen_*.go\n",
		"sub/gen_a.go":         "TODO: generated\n",
		"sub/real.go":          "package sub\n\n// TODO: real\n",
		".git/config":          "TODO: git internals\n",
		"docs/deep/a/b/c/d.md": "TODO: deep\n",
	})
	r, w := newTestRegistry(t, root)
	if _, err := w.Stage("sub/staged.go", "// TODO: staged only\n"); err != nil {
		t.Fatal(err)
	}
	res := call(t, r, "search", map[string]any{"pattern": `TODO: \w+`})
	want := strings.Join([]string{
		"docs/deep/a/b/c/d.md:1: TODO: deep",
		"keep.log:1: TODO: keep",
		"main.go:1: package main // TODO: main",
		"sub/build/x.go:1: TODO: nested build dir is not anchored",
		"sub/real.go:3: // TODO: real",
		"sub/staged.go:1: // TODO: staged only",
	}, "\n") + "\n"
	if res.Text != want {
		t.Fatalf("search:\n%s\nwant:\n%s", res.Text, want)
	}
	res = call(t, r, "search", map[string]any{"pattern": "TODO", "glob": "*.go", "path": "sub"})
	if strings.Count(res.Text, "\n") != 3 || strings.Contains(res.Text, ".md") {
		t.Fatalf("glob+path search:\n%s", res.Text)
	}
	if res = call(t, r, "search", map[string]any{"pattern": "(unclosed"}); !res.IsError || !strings.Contains(res.Text, "invalid pattern") {
		t.Fatalf("bad regexp: %+v", res)
	}

	res = call(t, r, "list_files", map[string]any{"depth": 2})
	for _, name := range []string{"main.go", "keep.log", "sub/real.go", "sub/staged.go (new, staged)", "docs/deep/"} {
		if !strings.Contains(res.Text, name+"\n") {
			t.Errorf("list_files lacks %s:\n%s", name, res.Text)
		}
	}
	for _, name := range []string{"app.log", "build/out.go", "node_modules", ".git/", "sub/gen_a.go", "docs/deep/a"} {
		if strings.Contains(res.Text, name) {
			t.Errorf("list_files shows %s:\n%s", name, res.Text)
		}
	}
}

func TestSearchCapsItsResults(t *testing.T) {
	root := t.TempDir()
	for i := range 30 {
		writeTree(t, root, map[string]string{fmt.Sprintf("f%02d.txt", i): strings.Repeat("hit\n", 10)})
	}
	r, _ := newTestRegistry(t, root)
	res := call(t, r, "search", map[string]any{"pattern": "hit"})
	if got := strings.Count(res.Text, ": hit\n"); got != maxSearchMatches {
		t.Fatalf("%d matches shown, want the cap %d", got, maxSearchMatches)
	}
	if !strings.Contains(res.Text, "results cut at 200 matches") {
		t.Fatalf("no cut marker:\n%s", res.Text[len(res.Text)-200:])
	}
}

func TestListFilesSkipsSymlinkedDirectories(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "x"})
	writeTree(t, root, map[string]string{"a.txt": "a"})
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	r, _ := newTestRegistry(t, root)
	if res := call(t, r, "list_files", nil); strings.Contains(res.Text, "secret") {
		t.Fatalf("followed a symlink out of the workspace:\n%s", res.Text)
	}
}

func TestSearchGlob(t *testing.T) {
	root := t.TempDir()
	files := []string{"a.go", "b.go", "c.go", "a_test.go", "cmd/x/main.go", "cmd/x/main_test.go",
		"cmd/README.md", "pkg/b.go", "pkg/deep/d_test.go", "pkg/a.txt"}
	tree := map[string]string{}
	for _, f := range files {
		tree[f] = "hit\n"
	}
	writeTree(t, root, tree)
	r, _ := newTestRegistry(t, root)
	for glob, want := range map[string][]string{
		"*.go":           {"a.go", "a_test.go", "b.go", "c.go", "cmd/x/main.go", "cmd/x/main_test.go", "pkg/b.go", "pkg/deep/d_test.go"},
		"**/*_test.go":   {"a_test.go", "cmd/x/main_test.go", "pkg/deep/d_test.go"},
		"cmd/**":         {"cmd/README.md", "cmd/x/main.go", "cmd/x/main_test.go"},
		"{a,b}.go":       {"a.go", "b.go", "pkg/b.go"},
		"/pkg/*.go":      {"pkg/b.go"},
		"pkg/*.go":       {"pkg/b.go"},
		"*_test.go":      {"a_test.go", "cmd/x/main_test.go", "pkg/deep/d_test.go"},
		"[ab].*":         {"a.go", "b.go", "pkg/a.txt", "pkg/b.go"},
		"cmd/**/main.go": {"cmd/x/main.go"},
	} {
		res := call(t, r, "search", map[string]any{"pattern": "hit", "glob": glob})
		var got []string
		for _, m := range res.Data.([]searchMatch) {
			got = append(got, m.Path)
		}
		if !slices.Equal(got, want) {
			t.Errorf("glob %q: %v, want %v", glob, got, want)
		}
	}
	if res := call(t, r, "search", map[string]any{"pattern": "hit", "glob": "[a"}); !res.IsError || !strings.Contains(res.Text, "invalid glob") {
		t.Errorf("unclosed bracket: %+v", res)
	}
}

// A search that reaches its byte or time budget stops there, returns what
// it found and says why; so does a listing at its time budget.
func TestSearchAndListStopAtTheirBudgets(t *testing.T) {
	root := t.TempDir()
	tree := map[string]string{}
	for i := range 40 {
		tree[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("hit\n", 100) // 400 bytes
	}
	writeTree(t, root, tree)
	w, err := NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	search := func(lim searchLimits) *searchFound {
		t.Helper()
		found, err := w.search(context.Background(), root, ".", regexp.MustCompile("zzz"), pathGlob{}, lim)
		if err != nil {
			t.Fatal(err)
		}
		return found
	}
	found := search(searchLimits{fileBytes: 1 << 20, totalBytes: 2000, time: time.Minute})
	if found.stopped != errSearchBytes || !strings.Contains(found.text(), "(search stopped after reading 2.0 KiB: the files not yet read were not searched; narrow the path or glob)\n") {
		t.Errorf("byte budget: stopped by %v:\n%s", found.stopped, found.text())
	}
	found = search(searchLimits{fileBytes: 1 << 20, totalBytes: 1 << 30, time: time.Nanosecond})
	if found.stopped != errSearchTime || found.text() != "no matches\n(search stopped after 1ns: the files not yet read were not searched; narrow the path or glob)\n" {
		t.Errorf("time budget: stopped by %v:\n%s", found.stopped, found.text())
	}
	if found = search(defaultSearchLimits); found.stopped != nil || found.text() != "no matches" {
		t.Errorf("within the budgets: stopped by %v:\n%s", found.stopped, found.text())
	}

	res, err := w.listFiles(context.Background(), ".", 3, time.Nanosecond)
	if err != nil || res.Text != "(listing stopped after 1ns: what was not reached is not shown; list a subdirectory or lower depth)\n" {
		t.Errorf("listing at its time budget: %v %q", err, res.Text)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.listFiles(ctx, ".", 3, time.Minute); err != context.Canceled {
		t.Errorf("a cancelled listing: %v, want context.Canceled", err)
	}
	if _, err := w.search(ctx, root, ".", regexp.MustCompile("hit"), pathGlob{}, defaultSearchLimits); err != context.Canceled {
		t.Errorf("a cancelled search: %v, want context.Canceled", err)
	}
}
