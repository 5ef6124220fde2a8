package helix_test

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestMain removes the binary the tests built, and the sandboxes' dirs.
func TestMain(m *testing.M) { toolstest.Main(m) }
