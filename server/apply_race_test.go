package server_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// TestTwoAppliesAtOnceSendOneEdit: while the client holds the first
// workspace/applyEdit open, a second agent.applyProposal for the same
// proposal is refused; the client gets one edit.
func TestTwoAppliesAtOnceSendOneEdit(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"a.txt","old_string":"one","new_string":"uno"}`)}},
		llmtest.Turn{Text: "translated"},
	)
	f := newFixture(t, map[string]string{"a.txt": "one\ntwo\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
	res := f.ask(map[string]any{"prompt": "translate"})
	f.waitEnd(res.RunID)
	f.editor.Open(f.uri("a.txt"), "one\ntwo\n")
	applying, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	f.editor.SetBeforeApply(func() {
		once.Do(func() { close(applying) })
		<-release
	})
	var applied struct {
		Applied bool `json:"applied"`
	}
	first := make(chan error, 1)
	go func() {
		first <- f.editor.Command(server.CommandApplyProposal, map[string]any{"id": res.ProposalID}, &applied)
	}()
	<-applying
	err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": res.ProposalID}, nil)
	if err == nil || !strings.Contains(err.Error(), "already applying") {
		t.Errorf("the second apply: %v, want it refused as already applying", err)
	}
	close(release)
	if err := <-first; err != nil || !applied.Applied {
		t.Fatalf("the first apply: %+v %v", applied, err)
	}
	if n := len(f.editor.Edits()); n != 1 {
		t.Fatalf("the client got %d edits for one proposal", n)
	}
}

// TestCancelRightAfterAsk cancels runs the moment they are listed: under
// -race this caught the cancel function written without the lock after the
// run was already visible.
func TestCancelRightAfterAsk(t *testing.T) {
	srv := llmtest.NewOpenAIResponder(t, func(map[string]any) llmtest.Turn { return llmtest.Turn{Text: "done"} })
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
	for range 10 {
		var session struct {
			Session string `json:"session"`
		}
		if err := f.editor.Command(server.CommandNewSession, nil, &session); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- f.editor.Command(server.CommandCancel, nil, nil) }()
		// wait: the answer comes when the run ended, cancelled or not.
		var res askResult
		if err := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "quick", "session": session.Session, "wait": true}, &res); err != nil {
			t.Fatal(err)
		}
		<-done
		// Even a run cancelled before its progress began ends it.
		f.waitEnd(res.RunID)
	}
}
