// Package toolstest holds helpers for tests that need a workspace on disk.
package toolstest

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteTree creates a temporary workspace holding files (slash path →
// content) and returns its root, with symlinks resolved (as the workspace
// view reports paths).
func WriteTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	WriteFiles(t, root, files)
	return root
}

// WriteFiles creates files (slash path → content) under an existing root.
func WriteFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
