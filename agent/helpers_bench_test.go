package agent_test

import (
	"encoding/json"
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

func toJSONString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
