package agent_test

import (
	"slices"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/tools"
)

// TestPrepareTakesTheTaskFromTheSettings: the CLI and the server get the
// same strategy, checks and limits from the same settings.
func TestPrepareTakesTheTaskFromTheSettings(t *testing.T) {
	ws := workspace(t, map[string]string{"a.go": "package a\n"})
	history := &agent.History{}
	run := agent.Run{
		Settings: config.Settings{Strategy: "reflexion", Checks: []string{"go test ./..."}, MaxTrials: 2, MaxReplans: 4},
		Provider: &instantProvider{}, Workspace: ws, Policy: tools.NewPolicy(nil),
		Prompt: "fix it", History: history,
	}
	a, task, err := agent.Prepare(run)
	if err != nil || a == nil {
		t.Fatal(err)
	}
	if task.Strategy != agent.StrategyReflexion || task.Prompt != "fix it" || task.History != history || task.Workspace != ws ||
		!slices.Equal(task.Checks, []string{"go test ./..."}) || task.MaxTrials != 2 || task.MaxReplans != 4 || task.ConfirmPlan != nil {
		t.Fatalf("task %+v", task)
	}
	run.Settings.Strategy = "guess"
	if _, _, err := agent.Prepare(run); err == nil {
		t.Fatal("an unknown strategy was accepted")
	}
}
