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

// NoTestTouched begins the tests' verdict of a change no test touches
// (AddModule has none): what ends the answer after the language servers'
// check.
const NoTestTouched = "Tests: not run: no test touches the changed files"

// AddModule is a Go module whose Add (a/a.go) b/b.go calls: the wires'
// language-server tests change Add's signature in it.
var AddModule = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.22\n",
	"a/a.go": "package a\n\nfunc Add(x, y int) int { return x + y }\n",
	"b/b.go": "package b\n\nimport \"example.com/m/a\"\n\nfunc Two() int {\n\treturn a.Add(1, 1)\n}\n",
}

// AddThirdOperand is a model's script over AddModule: Add takes z, which
// breaks b/b.go:6, then the caller passes 0 and the model answers.
func AddThirdOperand() []llmtest.Turn {
	return []llmtest.Turn{
		{Calls: []llmtest.Call{EditCall("a/a.go", "x, y int", "x, y, z int")}},
		{Calls: []llmtest.Call{EditCall("b/b.go", "a.Add(1, 1)", "a.Add(1, 1, 0)")}},
		{Text: "Add takes z; Two passes 0."},
	}
}
