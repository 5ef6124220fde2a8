package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
		err := w.walk(context.Background(), ".", 0, func(walkEntry) error { entries++; return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(entries), "entries")
}
