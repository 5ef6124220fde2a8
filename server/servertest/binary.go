package servertest

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// Binary builds cmd/agent-lsp once per test process and returns its path,
// for tests that drive the real executable (Node, Neovim).
func Binary(t testing.TB) string {
	t.Helper()
	return toolstest.Build(t, "./cmd/agent-lsp")
}
