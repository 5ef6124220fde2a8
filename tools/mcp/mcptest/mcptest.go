// Package mcptest gives tests MCP servers to talk to: the test server in
// tools/mcp/testdata (built once per test process) and the reference
// server-everything from npm (tools/mcp/testdata/everything, installed by
// `make deps`).
package mcptest

import (
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestServer builds tools/mcp/testdata/testserver once per test process and
// returns its path. Its tools and flags are described in its main.go.
func TestServer(t testing.TB) string {
	t.Helper()
	return toolstest.Build(t, "./tools/mcp/testdata/testserver")
}

// Everything returns the command line that starts the reference
// server-everything over stdio: node and its script. It skips the test
// without node, and without the package unless in CI, where `make deps`
// must have installed it.
func Everything(t testing.TB) (node string, args []string) {
	t.Helper()
	dir := filepath.Join(toolstest.ModuleRoot(), "tools", "mcp", "testdata", "everything")
	node = toolstest.Node(t, dir, "@modelcontextprotocol/server-everything")
	return node, []string{filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"}
}
