package agentruntest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// WithGopls lets the language servers of every wire made after it start
// gopls, as a plain process (the product's starter is the sandbox's),
// found on PATH; undone when t ends.
func WithGopls(t *testing.T) {
	gopls := toolstest.LanguageServer(t, "gopls")
	t.Setenv("PATH", filepath.Dir(gopls)+string(os.PathListSeparator)+os.Getenv("PATH"))
	saved := agentrun.LanguageServerStarter
	agentrun.LanguageServerStarter = langservertest.Exec(langservertest.GoEnv(t)...)
	t.Cleanup(func() { agentrun.LanguageServerStarter = saved })
}

// EditCall is a scripted edit_file call replacing old with new in path.
func EditCall(path, old, new string) llmtest.Call {
	b, _ := json.Marshal(map[string]string{"path": path, "old_string": old, "new_string": new})
	return llmtest.Call{Name: "edit_file", Args: string(b)}
}
