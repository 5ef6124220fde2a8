package agent_test

import (
	"os"
	"path/filepath"
	"testing"
)

func writeFile(tb testing.TB, root, name, content string) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}
