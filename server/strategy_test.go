package server_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

func TestPlanStrategyShowsThePlanAndProposesAllSteps(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Text: `{"steps": [{"goal": "add a header", "done": "a.txt starts with #"}, {"goal": "add a footer", "done": "a.txt ends with --"}]}`},
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"a.txt","old_string":"body","new_string":"# header\nbody"}`)}},
		llmtest.Turn{Text: "STEP DONE"},
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"a.txt","old_string":"body","new_string":"body\n--"}`)}},
		llmtest.Turn{Text: "STEP DONE"},
	)
	f := newFixture(t, map[string]string{"a.txt": "body\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true, ShowDocument: true}, nil)
	res := f.ask(map[string]any{"prompt": "frame the file", "strategy": "plan"})
	if end := f.waitEnd(res.RunID); !strings.HasPrefix(end, "Completed: 1 file(s) changed") {
		t.Fatalf("end %q", end)
	}
	var shownPlan bool
	for _, u := range f.editor.Shown() {
		shownPlan = shownPlan || strings.HasSuffix(string(u), res.RunID+"-plan.md")
	}
	if !shownPlan {
		t.Fatalf("the plan was not shown: %v", f.editor.Shown())
	}
	var steps []string
	for _, p := range f.editor.Progress() {
		if strings.HasPrefix(p.Message, "step ") {
			steps = append(steps, p.Message)
		}
	}
	if len(steps) == 0 || !strings.Contains(strings.Join(steps, "\n"), "step 2/2 · Iteration 1/10") {
		t.Fatalf("step progress: %q", steps)
	}
	var shown struct {
		Diff string `json:"diff"`
	}
	if err := f.editor.Command("agent.showProposal", map[string]any{"id": res.ProposalID}, &shown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(shown.Diff, "+# header\n body\n+--\n") {
		t.Fatalf("the proposal must hold both steps' changes:\n%s", shown.Diff)
	}
}
