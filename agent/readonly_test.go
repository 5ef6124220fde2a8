package agent

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestReadOnlyOffersOnlyReadOnlyTools(t *testing.T) {
	ws, err := tools.NewWorkspace(toolstest.WriteTree(t, map[string]string{"a.txt": "a\n"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := append(tools.NewDefaultRegistry(ws, tools.NewPolicy(nil), nil, tools.CommandLimits{}).Tools(), NewRememberTool(NewMemory(t.TempDir())))
	registry, err := tools.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := WithSubAgents(Config{Provider: llmtest.NewScripted(), Tools: registry})
	if err != nil {
		t.Fatal(err)
	}
	a := New(cfg)
	ro := a.ReadOnly()
	var names []string
	for _, s := range ro.specs {
		names = append(names, s.Name)
		if tl, ok := ro.cfg.Tools.Lookup(s.Name); !ok || !tl.ReadOnly() {
			t.Errorf("%s offered in read-only mode", s.Name)
		}
	}
	for _, want := range []string{"read_file", "list_files", "search", "delegate"} {
		if _, ok := ro.cfg.Tools.Lookup(want); !ok {
			t.Errorf("%s missing from %v", want, names)
		}
	}
	if _, ok := a.cfg.Tools.Lookup("write_file"); !ok {
		t.Error("ReadOnly changed the original agent")
	}
}
