package acp

import (
	"encoding/json"
	"path/filepath"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestDescribeCall(t *testing.T) {
	root := toolstest.WriteTree(t, map[string]string{"src/a.go": "package a\n"})
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, args, title string
		kind              sdk.ToolKind
		loc               string
		line              int
	}{
		{"read_file", `{"path":"src/a.go","offset":10}`, "Read src/a.go", sdk.ToolKindRead, "src/a.go", 9},
		{"read_file", `{"path":"../../etc/passwd"}`, "Read ../../etc/passwd", sdk.ToolKindRead, "", -1},
		{"edit_file", `{"path":"src/a.go"}`, "Edit src/a.go", sdk.ToolKindEdit, "src/a.go", -1},
		{"write_file", `{"path":"new.txt"}`, "Write new.txt", sdk.ToolKindEdit, "new.txt", -1},
		{"search", `{"pattern":"fo` + "`" + `o","path":"src","glob":"*.go"}`, "Search ``fo`o`` in src (*.go)", sdk.ToolKindSearch, "src", -1},
		{"list_files", `{}`, "List the workspace", sdk.ToolKindSearch, ".", -1},
		{"execute_command", `{"command":"go test ./...\n rm -rf /"}`, "Run `go test ./...\\n rm -rf /`", sdk.ToolKindExecute, "", -1},
		{"delegate", `{"task":"find the callers\nof A"}`, "Sub-agent: find the callers", sdk.ToolKindThink, "", -1},
		{"mcp__github__list_issues", `{}`, "MCP github: list_issues", sdk.ToolKindOther, "", -1},
		{"read_file", `not json`, "Read .", sdk.ToolKindRead, ".", -1},
	} {
		title, kind, locs := describeCall(llm.ToolCall{Name: tc.name, Args: json.RawMessage(tc.args)}, ws)
		if title != tc.title || kind != tc.kind {
			t.Errorf("%s %s: %q %s, want %q %s", tc.name, tc.args, title, kind, tc.title, tc.kind)
		}
		switch {
		case tc.loc == "" && len(locs) != 0:
			t.Errorf("%s %s: locations %+v, want none", tc.name, tc.args, locs)
		case tc.loc != "" && (len(locs) != 1 || locs[0].Path != filepath.Join(root, tc.loc) && !(tc.loc == "." && locs[0].Path == root)):
			t.Errorf("%s %s: locations %+v, want %s", tc.name, tc.args, locs, tc.loc)
		case tc.line >= 0 && (len(locs) != 1 || locs[0].Line == nil || *locs[0].Line != tc.line):
			t.Errorf("%s %s: line %+v, want %d", tc.name, tc.args, locs, tc.line)
		}
	}
}

// A replan keeps what was done, marks the failed step, and replaces the rest.
func TestPlanEntriesAcrossAReplan(t *testing.T) {
	tr := &turn{failed: map[int]bool{}, calls: map[string]*shownCall{}, shown: map[string]string{}, closed: true}
	tr.planMade("1. Read a (done when: read)\n2. Change b\n3. Test\n")
	tr.stepStarted(1)
	tr.stepStarted(2)
	tr.planMade("Replanned after step 2 failed (1 of 2 replans):\n3. Change b differently\n4. Test it\n")
	tr.stepStarted(3)
	tr.planDone()
	want := []sdk.PlanEntry{
		{Content: "Read a", Status: sdk.PlanEntryStatusCompleted},
		{Content: "✗ Change b (failed)", Status: sdk.PlanEntryStatusCompleted},
		{Content: "Change b differently", Status: sdk.PlanEntryStatusCompleted},
		{Content: "Test it", Status: sdk.PlanEntryStatusPending},
	}
	if len(tr.plan) != len(want) {
		t.Fatalf("plan = %+v", tr.plan)
	}
	for i, w := range want {
		if tr.plan[i].Content != w.Content || tr.plan[i].Status != w.Status {
			t.Errorf("entry %d = %+v, want %+v", i+1, tr.plan[i], w)
		}
	}
}
