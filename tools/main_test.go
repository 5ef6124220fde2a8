package tools

import (
	"os"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestMain(m *testing.M) { toolstest.Main(m) }

// sandboxTestDir keeps the private homes and one shared build cache of the
// tests' sandboxes, so the Go cache is warmed once for the package.
func sandboxTestDir() string { return os.Getenv("XDG_CACHE_HOME") }
