package langserver_test

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestMain(m *testing.M) { toolstest.Main(m) }
