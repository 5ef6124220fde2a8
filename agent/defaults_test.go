package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools"
)

// An agent whose config sets no cap stops where the settings table says a
// run without max_iterations stops: leaving the setting out and setting it
// to its documented default mean the same.
func TestUnsetIterationCapIsTheTablesDefault(t *testing.T) {
	want := tableDefault(t, "max_iterations")
	if got := (config.Settings{}).Iterations(); got != want {
		t.Fatalf("Settings.Iterations() unset = %d, the table says %d", got, want)
	}
	w := workspace(t, map[string]string{"a.txt": "a"})
	var turns []llmtest.Turn
	for i := range want + 1 {
		turns = append(turns, llmtest.Turn{Calls: []llmtest.Call{{Name: "list_files", Args: fmt.Sprintf(`{"depth":%d}`, i+1)}}})
	}
	a := agent.New(agent.Config{Provider: llmtest.NewScripted(turns...), Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{})})
	var h agent.History
	out, err := a.Run(context.Background(), &h, "loop forever")
	if !errors.Is(err, agent.ErrIterationLimit) || out.Iterations != want {
		t.Fatalf("stopped after %d iterations (%v), the table documents %d", out.Iterations, err, want)
	}
}

// tableDefault is the Default the settings table documents for a number.
func tableDefault(t *testing.T, name string) int {
	t.Helper()
	for _, r := range config.Table() {
		if r.TOML == name {
			d, ok := r.Default.(int)
			if !ok {
				t.Fatalf("%s's Default %#v is no number", name, r.Default)
			}
			return d
		}
	}
	t.Fatalf("no setting %s", name)
	return 0
}

// A reflexion task that sets no trials runs as many as the table documents
// for max_trials.
func TestUnsetTrialsAreTheTablesDefault(t *testing.T) {
	want := tableDefault(t, "max_trials")
	var turns []llmtest.Turn
	for i := range want {
		if i > 0 {
			turns = append(turns, llmtest.Turn{Text: "Change something next time."})
		}
		turns = append(turns, llmtest.Turn{Text: "Done."}, llmtest.Turn{Text: `{"pass": false, "critique": "nothing was changed"}`})
	}
	w := workspace(t, map[string]string{"a.txt": "x\n"})
	provider := llmtest.NewScripted(turns...)
	a := agent.New(agent.Config{Provider: provider, Tools: tools.NewDefaultRegistry(w, tools.NewPolicy(nil), nil, tools.CommandLimits{})})
	out, err := a.Do(context.Background(), agent.Task{Prompt: "change a.txt", Strategy: agent.StrategyReflexion, Workspace: w})
	if err != nil {
		t.Fatal(err)
	}
	if prefix := fmt.Sprintf("After %d trials the checks still fail", want); !strings.HasPrefix(out.Answer, prefix) || provider.Remaining() != 0 {
		t.Fatalf("want %q, %d turns left; answer:\n%s", prefix, provider.Remaining(), out.Answer)
	}
}
