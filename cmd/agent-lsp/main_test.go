package main

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestMain(m *testing.M) {
	localServers = nil // no test finds whatever model server the developer runs; detect_test sets its own
	toolstest.Main(m)
}
