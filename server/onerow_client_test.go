package server_test

import (
	"os"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// helix is how Helix 25.01 initializes: work-done progress, resource
// operations, no showDocument declared (it opens a shown document all
// the same), no message actions.
var helix = servertest.Caps{Progress: true, NoMessageRequest: true, Name: "helix"}

// TestOneRowClientKeepsTheShortAnswerLast: Helix shows only the latest of
// messages and progress, on one row. A short answer comes as a message
// after the progress ends, so it stays; nothing is opened for it.
func TestOneRowClientKeepsTheShortAnswerLast(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "It greets."})
	f := newFixture(t, map[string]string{"a.py": "x = 1\n"}, srv, nil)
	f.editor.Initialize(f.root, helix, nil)
	res := f.ask(map[string]any{"prompt": "explain"})
	want := "message: agent-lsp: " + res.RunID + ": It greets."
	f.editor.Wait("the answer", func() bool {
		return strings.Contains(strings.Join(f.editor.MessagesAndProgress(), "\n"), want)
	})
	if _, ended := f.editor.ProgressEnded("agent-lsp/" + res.RunID); !ended {
		t.Fatal("the answer came before the progress ended")
	}
	if seen := f.editor.MessagesAndProgress(); seen[len(seen)-1] != want {
		t.Fatalf("the last thing shown is %q, not the answer", seen[len(seen)-1])
	}
	if shown := f.editor.Shown(); len(shown) != 0 {
		t.Fatalf("a short answer opened %v", shown)
	}
}

// TestOneRowClientIsShownTheLongAnswer: an answer longer than one row is
// opened in Helix, which handles showDocument without declaring it.
func TestOneRowClientIsShownTheLongAnswer(t *testing.T) {
	answer := "First line.\n\n- a point\n- the last point\n"
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: answer})
	f := newFixture(t, map[string]string{"a.py": "x = 1\n"}, srv, nil)
	f.editor.Initialize(f.root, helix, nil)
	res := f.ask(map[string]any{"prompt": "explain"})
	f.editor.Wait("the answer opened", func() bool { return len(f.editor.Shown()) == 1 })
	data, err := os.ReadFile(f.editor.Shown()[0].FsPath())
	if err != nil || !strings.Contains(string(data), strings.TrimSpace(answer)) {
		t.Fatalf("the opened answer %q: %v", data, err)
	}
	f.editor.Wait("the progress end", func() bool {
		_, ended := f.editor.ProgressEnded("agent-lsp/" + res.RunID)
		return ended
	})
	for _, m := range f.editor.Messages() {
		if strings.Contains(m, "First line.") {
			t.Fatalf("the opened answer also came as a message: %q", m)
		}
	}
}

// TestReadOnlyAskNamesNoProposal: agent.ask's immediate reply names the
// proposal a run would make only when it can make one.
func TestReadOnlyAskNamesNoProposal(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "It greets."}, llmtest.Turn{Text: "Nothing to change."})
	f := newFixture(t, map[string]string{"a.py": "x = 1\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
	var raw map[string]any
	if err := f.editor.Command("agent.ask", map[string]any{"prompt": "explain", "mode": "ask"}, &raw); err != nil {
		t.Fatal(err)
	}
	if id, named := raw["proposalId"]; named || raw["runId"] != "run-1" {
		t.Fatalf("a read-only run's reply %v names proposal %v", raw, id)
	}
	f.waitEnd("run-1")
	if res := f.ask(map[string]any{"prompt": "change it", "wait": true}); res.ProposalID != "proposal-2" {
		t.Fatalf("a run that can propose: %+v", res)
	}
}
