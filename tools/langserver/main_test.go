package langserver_test

import (
	"os"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// fakeProcessEnv makes the test binary the scripted server on its stdio:
// a real process, for what only processes show (none left behind).
const fakeProcessEnv = "AGENT_LSP_FAKE_LANGSERVER"

func TestMain(m *testing.M) {
	if os.Getenv(fakeProcessEnv) != "" {
		serveStdio()
		os.Exit(0)
	}
	toolstest.Main(m)
}
