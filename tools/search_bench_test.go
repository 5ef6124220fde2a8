package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// fiftyThousandFiles generates a tree of 50,000 small source files in 500
// directories under b's temporary directory; one line in 1,000 files
// matches "needle".
func fiftyThousandFiles(b *testing.B) string {
	root := b.TempDir()
	body := ""
	for i := range 40 {
		body += fmt.Sprintf("func f%d(x int) int { return x * %d } // some ordinary code\n", i, i)
	}
	for d := range 500 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			content := body
			if f%50 == 0 {
				content += "// needle: find me\n"
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.go", f)), []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root
}

// BenchmarkSearch50k compares the search tool with grep -r on the same tree
// (the page cache is warm for both after the first iteration).
func BenchmarkSearch50k(b *testing.B) {
	root := fiftyThousandFiles(b)
	b.Run("search-tool", func(b *testing.B) {
		w, err := NewWorkspace(root, nil)
		if err != nil {
			b.Fatal(err)
		}
		tool := NewSearch(w)
		args, _ := json.Marshal(map[string]any{"pattern": `needle: \w+`})
		for b.Loop() {
			res, err := tool.Execute(context.Background(), args)
			if err != nil || res.IsError {
				b.Fatal(err, res.Text)
			}
			if n := len(res.Data.([]searchMatch)); n != 200 {
				b.Fatalf("%d matches, want the cap of 200 (1,000 exist)", n)
			}
		}
	})
	b.Run("search-tool-full-scan", func(b *testing.B) {
		// A pattern matching nothing: the whole tree is read every time.
		w, _ := NewWorkspace(root, nil)
		tool := NewSearch(w)
		args, _ := json.Marshal(map[string]any{"pattern": `zzz_absent`})
		for b.Loop() {
			if _, err := tool.Execute(context.Background(), args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("grep-r-full-scan", func(b *testing.B) {
		if _, err := exec.LookPath("grep"); err != nil {
			b.Skip("no grep")
		}
		for b.Loop() {
			out, err := exec.Command("grep", "-rE", `zzz_absent`, root).CombinedOutput()
			if err != nil && len(out) > 0 {
				b.Fatal(string(out))
			}
		}
	})
}

// BenchmarkSearchRepo searches this repository as it is checked out (its
// .gitignore keeps node_modules and builds out): a pattern with a few
// hundred matches, cut at the cap, and one that matches nothing, so every
// file is read.
func BenchmarkSearchRepo(b *testing.B) {
	w, err := NewWorkspace(toolstest.ModuleRoot(), nil)
	if err != nil {
		b.Fatal(err)
	}
	tool := NewSearch(w)
	for name, pattern := range map[string]string{"some-matches": `func New\w+\(`, "full-scan": `zzz_absent_\d{9}`} {
		b.Run(name, func(b *testing.B) {
			args, _ := json.Marshal(map[string]any{"pattern": pattern})
			for b.Loop() {
				if res, err := tool.Execute(context.Background(), args); err != nil || res.IsError {
					b.Fatal(err, res.Text)
				}
			}
		})
	}
}
