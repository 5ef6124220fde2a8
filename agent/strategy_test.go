package agent_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/llm/openai"
	"github.com/agent-lsp/agent-lsp/tools"
)

func wireProvider(t testing.TB, srv *llmtest.Server) llm.Provider {
	t.Helper()
	p, err := openai.New(openai.Config{Model: "m", BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func lastUser(body map[string]any) string { return llmtest.LastUserText(body) }

func TestPlanWhoseSecondStepFailsIsReplanned(t *testing.T) {
	w := workspace(t, map[string]string{"README.md": "# project\n"})
	before := snapshotDir(t, w.Root())
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Text: "```json\n{\"steps\": [{\"goal\": \"create a.txt\", \"done\": \"a.txt exists\"}, {\"goal\": \"create b.txt\", \"done\": \"b.txt exists\"}]}\n```"},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"a\n"}`}}},
		llmtest.Turn{Text: "Created a.txt.\nSTEP DONE"},
		llmtest.Turn{Text: "The name b.txt is reserved here.\nSTEP FAILED: b.txt is reserved"},
		llmtest.Turn{Text: `{"steps": [{"goal": "create c.txt instead", "done": "c.txt exists"}]}`},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"c.txt","content":"c\n"}`}}},
		llmtest.Turn{Text: "Created c.txt.\nSTEP DONE"},
	)
	var trace bytes.Buffer
	var plans []string
	traceFn := agent.TraceWriter(&trace, "m")
	a := agent.New(agent.Config{Provider: wireProvider(t, srv), Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{}),
		OnEvent: func(e agent.Event) {
			traceFn(e)
			if e.Kind == agent.EventPlan {
				plans = append(plans, e.Text)
			}
		}})
	var h agent.History
	out, err := a.Do(context.Background(), agent.Task{Prompt: "create two files", Strategy: agent.StrategyPlan, History: &h, Workspace: w})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"The plan is done (3 steps, 1 failed and were replanned)", "1. ✓ create a.txt", "2. ✗ create b.txt\n   b.txt is reserved", "3. ✓ create c.txt instead"} {
		if !strings.Contains(out.Answer, want) {
			t.Errorf("answer lacks %q:\n%s", want, out.Answer)
		}
	}
	if len(plans) != 2 || !strings.Contains(plans[0], "1. create a.txt (done when: a.txt exists)") || !strings.Contains(plans[1], "Replanned after step 2 failed") {
		t.Fatalf("plans shown: %q", plans)
	}
	var paths []string
	for _, c := range w.Changes() {
		paths = append(paths, c.Path)
	}
	if strings.Join(paths, ",") != "a.txt,c.txt" {
		t.Fatalf("proposal holds %v", paths)
	}
	reqs := srv.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d model calls", len(reqs))
	}
	step2 := lastUser(reqs[3])
	if !strings.Contains(step2, "Now carry out this step only: create b.txt") || !strings.Contains(step2, "1. create a.txt — done: Created a.txt.") {
		t.Fatalf("step 2 prompt:\n%s", step2)
	}
	if replan := lastUser(reqs[4]); !strings.Contains(replan, `Step "create b.txt" failed: b.txt is reserved`) {
		t.Fatalf("replan prompt:\n%s", replan)
	}
	if !strings.Contains(trace.String(), "[step 2/2] [AGENT] Iteration 1/10") || !strings.Contains(trace.String(), "[PLAN]") {
		t.Fatalf("trace:\n%s", trace.String())
	}
	if h.Len() != 2 {
		t.Fatalf("the session should hold the task and the summary, has %d messages", h.Len())
	}
	if !equalSnapshots(before, snapshotDir(t, w.Root())) {
		t.Fatal("user files changed")
	}
}

func TestReflexionLearnsFromAFailingCheck(t *testing.T) {
	w := workspace(t, map[string]string{
		"calc.py":  "def add(a, b):\n    return a - b\n",
		"check.sh": "cat calc.py\ngrep -q 'return a + b' calc.py\n",
	})
	before := snapshotDir(t, w.Root())
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"calc.py","old_string":"return a - b","new_string":"return a * b"}`}}},
		llmtest.Turn{Text: "Fixed add."},
		llmtest.Turn{Text: "I multiplied instead of adding. Next time make add return a + b."},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"calc.py","old_string":"return a - b","new_string":"return a + b"}`}}},
		llmtest.Turn{Text: "Fixed add properly."},
	)
	a := agent.New(agent.Config{Provider: wireProvider(t, srv), Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{})})
	out, err := a.Do(context.Background(), agent.Task{Prompt: "fix add", Strategy: agent.StrategyReflexion, Workspace: w, Checks: []string{"sh check.sh"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Answer, "Fixed add properly.") || !strings.Contains(out.Answer, "The checks pass (trial 2 of 3): sh check.sh") {
		t.Fatalf("answer:\n%s", out.Answer)
	}
	reqs := srv.Requests()
	reflection := lastUser(reqs[2])
	if !strings.Contains(reflection, "`sh check.sh` failed") || !strings.Contains(reflection, "    return a * b") {
		t.Fatalf("the check must have run in the sandbox with the agent's edit:\n%s", reflection)
	}
	if second := llmtest.FirstUserText(reqs[3]); !strings.Contains(second, "Lessons from earlier attempts") || !strings.Contains(second, "make add return a + b") {
		t.Fatalf("trial 2 prompt lacks the reflection:\n%s", second)
	}
	changes := w.Changes()
	if len(changes) != 1 || !strings.Contains(changes[0].New, "return a + b") || changes[0].Original != "def add(a, b):\n    return a - b\n" {
		t.Fatalf("proposal: %+v", changes)
	}
	w.Close()
	if !equalSnapshots(before, snapshotDir(t, w.Root())) {
		t.Fatal("user files changed")
	}
}

func TestReflexionWithoutChecksUsesACritiqueAndReportsTheBest(t *testing.T) {
	w := workspace(t, map[string]string{"a.txt": "x\n"})
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Text: "Done, I think."},
		llmtest.Turn{Text: `{"pass": false, "critique": "nothing was changed"}`},
		llmtest.Turn{Text: "Change something next time."},
		llmtest.Turn{Text: "Done again."},
		llmtest.Turn{Text: `{"pass": false, "critique": "still nothing"}`},
	)
	a := agent.New(agent.Config{Provider: wireProvider(t, srv), Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{})})
	out, err := a.Do(context.Background(), agent.Task{Prompt: "change a.txt", Strategy: agent.StrategyReflexion, Workspace: w, MaxTrials: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.Answer, "After 2 trials the checks still fail: critique: nothing was changed") {
		t.Fatalf("answer:\n%s", out.Answer)
	}
}

func snapshotDir(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			out[p] = string(data)
		}
		return nil
	})
	return out
}

func equalSnapshots(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestAPlanTheUserDeclinesRunsNoStep(t *testing.T) {
	w := workspace(t, map[string]string{"README.md": "# project\n"})
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Text: `{"steps": [{"goal": "create a.txt", "done": "a.txt exists"}, {"goal": "create b.txt", "done": "b.txt exists"}]}`},
	)
	a := agent.New(agent.Config{Provider: wireProvider(t, srv), Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{})})
	var shown string
	var h agent.History
	out, err := a.Do(context.Background(), agent.Task{Prompt: "create two files", Strategy: agent.StrategyPlan, History: &h, Workspace: w,
		ConfirmPlan: func(_ context.Context, plan string) (bool, error) { shown = plan; return false, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(shown, "create a.txt") || !strings.HasPrefix(out.Answer, "The plan was not run:") || !strings.Contains(out.Answer, "create b.txt") {
		t.Fatalf("shown %q, answer %q", shown, out.Answer)
	}
	if n := len(srv.Requests()); n != 1 || len(w.Changes()) != 0 {
		t.Fatalf("%d model calls and %d changes after a declined plan", n, len(w.Changes()))
	}
}
