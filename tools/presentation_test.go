package tools_test

import (
	"encoding/json"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// Every tool a run can get presents itself: a title and a kind of its own,
// never the bare name the fallback shows.
func TestEveryToolPresentsItself(t *testing.T) {
	w, err := tools.NewWorkspace(toolstest.WriteTree(t, map[string]string{"a.txt": "a\n"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{}).Tools()
	ts = append(ts, agent.NewRememberTool(agent.NewMemory(t.TempDir())))
	for _, tool := range ts {
		shown := tools.Show(tool.Name(), json.RawMessage(`{}`), nil)
		if shown.Title == tool.Name() || shown.Kind == "" {
			t.Errorf("%s presents nothing of its own: %+v", tool.Name(), shown)
		}
	}
}

// A title escapes what the model gave, and a path goes through the
// caller's naming.
func TestATitleIsEscapedAndNamesPathsAsTheCallerDoes(t *testing.T) {
	name := func(p string) string { return "<" + p + ">" }
	got := tools.Show("search", json.RawMessage(`{"pattern":"a`+"`"+`b\u001b[2J","path":"src","glob":"*.go"}`), name)
	if want := "Search ``a`b\\x1b[2J`` in <src> (*.go)"; got.Title != want || got.Kind != tools.KindSearch || got.Path != "src" {
		t.Fatalf("%+v, want title %q", got, want)
	}
	if got := tools.Show("read_file", json.RawMessage(`{"path":"a.txt","offset":12}`), nil); got.Line != 12 || got.Title != "Read a.txt" {
		t.Fatalf("%+v", got)
	}
	if got := tools.Show("mcp__github__get_issue", nil, nil); got.Title != "MCP github: get_issue" {
		t.Fatalf("%+v", got)
	}
}
