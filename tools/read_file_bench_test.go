package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hugeFile writes 1,000 lines of text at the start of a file of size bytes
// (sparse: Truncate makes the rest, zeros, without writing it).
func hugeFile(tb testing.TB, dir string, size int64) string {
	tb.Helper()
	var text strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&text, "line %d of a huge file\n", i)
	}
	p := filepath.Join(dir, "huge.txt")
	if err := os.WriteFile(p, []byte(text.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.Truncate(p, size); err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkReadFileHuge reads 10 lines from a 1 GiB file: B/op is what one
// read allocates, which must not grow with the file.
func BenchmarkReadFileHuge(b *testing.B) {
	root := b.TempDir()
	hugeFile(b, root, 1<<30)
	w, err := NewWorkspace(root, nil)
	if err != nil {
		b.Fatal(err)
	}
	tool := NewReadFile(w)
	b.ReportAllocs()
	for b.Loop() {
		res, err := tool.Execute(context.Background(), []byte(`{"path": "huge.txt", "limit": 10}`))
		if err != nil || res.IsError || !strings.HasPrefix(res.Text, "     1\tline 1 of a huge file\n") {
			b.Fatal(err, res.Text)
		}
	}
}
