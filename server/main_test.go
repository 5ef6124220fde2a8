package server_test

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestMain(m *testing.M) {
	agentrun.LanguageServerStarter = langservertest.Off // a test that wants one starts it
	toolstest.Main(m)
}
