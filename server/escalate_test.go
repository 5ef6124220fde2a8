package server_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

func TestWhenTheModelsFailTheUserIsAskedAndRetryContinues(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"a.txt","old_string":"one","new_string":"uno"}`)}},
		llmtest.Turn{Status: 401, Body: `{"error":{"message":"key revoked"}}`},
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"a.txt","old_string":"two","new_string":"dos"}`)}},
		llmtest.Turn{Text: "translated both"},
	)
	f := newFixture(t, map[string]string{"a.txt": "one\ntwo\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
	f.editor.SetApprove("Retry")
	first := f.ask(map[string]any{"prompt": "translate"})
	if end := f.waitEnd(first.RunID); !strings.Contains(end, "Failed: ") || !strings.Contains(end, "unauthorized") {
		t.Fatalf("first run: %q", end)
	}
	f.editor.Wait("the question", func() bool { return len(f.editor.Asked()) == 1 })
	if q := f.editor.Asked()[0]; !strings.Contains(q, "run-1 stopped") || !strings.Contains(q, "key revoked") {
		t.Fatalf("question: %q", q)
	}
	// The question says what each answer does to the staged changes:
	// Cancel discards them, so they are not "kept".
	if q := f.editor.Asked()[0]; strings.Contains(q, "are kept") || !strings.Contains(q, "Cancel discards them") {
		t.Fatalf("question: %q", q)
	}
	if actions := f.editor.AskedActions()[0]; actions[0] != "Cancel" {
		t.Fatalf("the first answer, which clients preselect, must be the safe one: %q", actions)
	}
	if end := f.waitEnd("run-2"); !strings.HasPrefix(end, "Completed: 1 file(s) changed (proposal-2)") {
		t.Fatalf("continued run: %q", end)
	}
	var shown struct {
		Diff string `json:"diff"`
	}
	if err := f.editor.Command(server.CommandShowProposal, map[string]any{"id": "proposal-2"}, &shown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(shown.Diff, "+uno\n+dos\n") {
		t.Fatalf("the continued run must keep the first run's edit:\n%s", shown.Diff)
	}
	// The continuation carried the history: its first request ends with the
	// result of the edit made before the failure.
	msgs := srv.Requests()[2]["messages"].([]any)
	if last := msgs[len(msgs)-1].(map[string]any); last["role"] != "tool" {
		t.Fatalf("continuation history: %v", msgs)
	}
	var status struct {
		Breakers []string `json:"breakers"`
	}
	if err := f.editor.Command(server.CommandStatus, nil, &status); err != nil || len(status.Breakers) != 1 || status.Breakers[0] != "openai:gpt-test: closed" {
		t.Fatalf("breaker state in agent.status: %v %v", status.Breakers, err)
	}
}
