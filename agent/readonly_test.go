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
	a, err := Build(Setup{Provider: llmtest.NewScripted(), Workspace: ws, Policy: tools.NewPolicy(nil), Memory: NewMemory(t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
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
