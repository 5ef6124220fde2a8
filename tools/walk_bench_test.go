package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkWalkWithGitignore walks 20,000 files in 400 directories under a
// root .gitignore of typical patterns and a nested one in every tenth
// package: the cost of matching every entry against the ignore rules.
func BenchmarkWalkWithGitignore(b *testing.B) {
	root := b.TempDir()
	files := map[string]string{".gitignore": "node_modules/\n*.log\n/build\n!keep.log\n*.[oa]\n**/tmp/**\ndist/\n" +
		".cache/\n*.swp\n*~\n/coverage\nvendor/**/testdata\n!important.log\n*.py[cod]\n[Bb]in/\n"}
	for d := range 200 {
		if d%10 == 0 {
			files[fmt.Sprintf("pkg%03d/.gitignore", d)] = "gen_*.go\n!gen_keep.go\n"
		}
		for f := range 100 {
			files[fmt.Sprintf("pkg%03d/sub/file%03d.go", d, f)] = ""
		}
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	w, err := NewWorkspace(root, nil)
	if err != nil {
		b.Fatal(err)
	}
	entries := 0
	for b.Loop() {
		entries = 0
		err := w.walk(context.Background(), ".", 0, nil, func(walkEntry) error { entries++; return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(entries), "entries")
}

// ignoreTree writes the tree an attacker's repository held: 1,000
// directories (10 groups of 100), each with a .gitignore of 1,000 lines
// (about 24 MB in all: names, globs, paths, negations; the last two
// lines ignore *.log and gen_*) and four files, two of them ignored.
// Each file's patterns concern its own directory only.
func ignoreTree(b *testing.B) string {
	root := b.TempDir()
	for g := range 10 {
		for d := range 100 {
			dir := filepath.Join(root, fmt.Sprintf("g%02d", g), fmt.Sprintf("d%02d", d))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			var ignore []byte
			for i := range 998 {
				switch i % 4 {
				case 0:
					ignore = fmt.Appendf(ignore, "ignored-name-%06d-abc\n", i)
				case 1:
					ignore = fmt.Appendf(ignore, "*.generated-%06d.o\n", i)
				case 2:
					ignore = fmt.Appendf(ignore, "out-%06d/deep/*.tmp\n", i)
				default:
					ignore = fmt.Appendf(ignore, "!kept-%06d-[ab].txt\n", i)
				}
			}
			ignore = append(ignore, "*.log\ngen_*\n"...)
			files := map[string][]byte{".gitignore": ignore, "keep.go": []byte("package keep\n"),
				"notes.txt": []byte("notes\n"), "x.log": []byte("log\n"), "gen_a.go": []byte("gen\n")}
			for name, data := range files {
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	return root
}

// BenchmarkIgnoreTree walks, lists and searches ignoreTree: each
// directory's patterns must cost only while the walk is inside it. The walk
// sees the whole tree; list_files stops at its cap of entries.
func BenchmarkIgnoreTree(b *testing.B) {
	root := ignoreTree(b)
	w, err := NewWorkspace(root, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			files := 0
			err := w.walk(context.Background(), ".", 0, nil, func(e walkEntry) error {
				if !e.IsDir {
					files++
				}
				return nil
			})
			if err != nil || files != 3000 {
				b.Fatalf("%d files seen (%v), want 3,000: .gitignore, keep.go and notes.txt of each directory", files, err)
			}
		}
	})
	b.Run("list_files", func(b *testing.B) {
		tool := NewListFiles(w)
		for b.Loop() {
			res, err := tool.Execute(context.Background(), []byte(`{"depth": 5}`))
			if err != nil || res.IsError {
				b.Fatal(err, res.Text)
			}
			if !strings.Contains(res.Text, "g00/d00/keep.go\n") || strings.Contains(res.Text, "x.log") {
				b.Fatalf("list_files:\n%s", res.Text)
			}
		}
	})
	b.Run("search", func(b *testing.B) {
		tool := NewSearch(w)
		for b.Loop() {
			res, err := tool.Execute(context.Background(), []byte(`{"pattern": "^(log|gen)$"}`))
			if err != nil || res.IsError || !strings.HasPrefix(res.Text, "no matches") {
				b.Fatal(err, res.Text)
			}
		}
	})
}
