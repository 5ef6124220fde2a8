package server_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
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
	f.editor.SetApprove("Run plan")
	res := f.ask(map[string]any{"prompt": "frame the file", "strategy": "plan"})
	if end := f.waitEnd(res.RunID); !strings.HasPrefix(end, "Completed: 1 file(s) changed") {
		t.Fatalf("end %q", end)
	}
	if asked := f.editor.Asked(); len(asked) != 1 || !strings.Contains(asked[0], "1. add a header") {
		t.Fatalf("the plan was not put to the user before its steps: %q", asked)
	}
	if actions := f.editor.AskedActions()[0]; actions[0] != "Cancel" {
		t.Fatalf("the first answer, which clients preselect, must be the safe one: %q", actions)
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
	if err := f.editor.Command(server.CommandShowProposal, map[string]any{"id": res.ProposalID}, &shown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(shown.Diff, "+# header\n body\n+--\n") {
		t.Fatalf("the proposal must hold both steps' changes:\n%s", shown.Diff)
	}
}

// TestAPlanWaitsForTheUser: dismissing the question runs no step; where the
// client cannot ask (Helix) the plan waits for the "Run the agent's plan"
// code action.
func TestAPlanWaitsForTheUser(t *testing.T) {
	plan := llmtest.Turn{Text: `{"steps": [{"goal": "add a header", "done": "a.txt starts with #"}]}`}
	t.Run("dismissed", func(t *testing.T) {
		srv := llmtest.NewOpenAIServer(t, plan)
		f := newFixture(t, map[string]string{"a.txt": "body\n"}, srv, nil)
		f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
		res := f.ask(map[string]any{"prompt": "frame the file", "strategy": "plan"})
		if end := f.waitEnd(res.RunID); strings.Contains(end, "changed") || len(srv.Requests()) != 1 {
			t.Fatalf("end %q after %d model calls: a step ran", end, len(srv.Requests()))
		}
	})
	for _, c := range []struct {
		name string
		caps servertest.Caps
	}{
		{"helix", servertest.Caps{Progress: true, NoMessageRequest: true}},
		// ALE never answers: the question ends after approval_timeout_s and
		// the code action runs the plan.
		{"never answers", servertest.Caps{Progress: true, NeverAnswer: true, UserSettings: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t, plan,
				llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"a.txt","old_string":"body","new_string":"# header\nbody"}`)}},
				llmtest.Turn{Text: "STEP DONE"})
			f := newFixture(t, map[string]string{"a.txt": "body\n"}, srv, nil)
			f.editor.Initialize(f.root, c.caps, map[string]any{"approvalTimeoutS": 1})
			u := f.uri("a.txt")
			f.editor.Open(u, "body\n")
			res := f.ask(map[string]any{"prompt": "frame the file", "strategy": "plan"})
			f.editor.Wait("the plan to wait", func() bool {
				for _, p := range f.editor.Progress() {
					if strings.Contains(p.Message, "Plan ready") {
						return true
					}
				}
				return false
			})
			var run *action
			for _, a := range codeActions(t, f, map[string]any{"textDocument": map[string]any{"uri": u},
				"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}, "context": map[string]any{}}) {
				if strings.HasPrefix(a.Title, "Run the agent's plan") {
					run = &a
				}
			}
			if run == nil || run.Command.Command != server.CommandRunPlan {
				t.Fatalf("no code action runs the waiting plan")
			}
			if err := f.editor.Command(run.Command.Command, run.Command.Arguments[0], nil); err != nil {
				t.Fatal(err)
			}
			if end := f.waitEnd(res.RunID); !strings.HasPrefix(end, "Completed: 1 file(s) changed") {
				t.Fatalf("end %q", end)
			}
		})
	}
}
