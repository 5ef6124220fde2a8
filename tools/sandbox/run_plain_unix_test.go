//go:build unix

package sandbox

import (
	"context"
	"io"
	"strings"
	"testing"
)

// The sandbox runs commands for more than one tool (commands, language
// servers): its errors say what failed in its own words, naming no tool.
func TestARunErrorNamesTheSandboxNotATool(t *testing.T) {
	w := World{Argv: []string{"/nonexistent/agent-lsp-no-such-shell", "-c", "true"}, Dir: t.TempDir()}
	_, err := runPlain(context.Background(), w, io.Discard, io.Discard)
	if err == nil || strings.Contains(err.Error(), "execute_command") || !strings.HasPrefix(err.Error(), "sandbox: ") {
		t.Fatalf("err = %v", err)
	}
}
