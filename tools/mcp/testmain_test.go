package mcp

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestMain removes the test server's binary when the tests are done.
func TestMain(m *testing.M) { toolstest.Main(m) }
