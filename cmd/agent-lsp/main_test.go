package main

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestMain(m *testing.M) {
	localServers = nil                                  // no test finds whatever model server the developer runs; detect_test sets its own
	agentrun.LanguageServerStarter = langservertest.Off // nor their language servers; a test that wants one starts it
	toolstest.Main(m)
}
