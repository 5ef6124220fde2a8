package server_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestAFollowUpAfterACancelledToolCallIsAValidConversation: a run cancelled
// while a tool ran (here a sub-agent waiting on the model) leaves a call
// without a result; the next ask in the same session must send a result for
// it, or providers answer 400.
func TestAFollowUpAfterACancelledToolCallIsAValidConversation(t *testing.T) {
	var n atomic.Int32
	srv := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		switch n.Add(1) {
		case 1:
			return llmtest.Turn{Calls: []llmtest.Call{call("delegate", `{"task":"find the config"}`)}}
		case 2: // the sub-agent's model call hangs until the run is cancelled
			return llmtest.Turn{Text: "late", Delay: servertest.Timeout}
		}
		return llmtest.Turn{Text: "fresh answer"}
	})
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
	first := f.ask(map[string]any{"prompt": "look around"})
	toolstest.Poll(t, "the sub-agent's model call", func() bool { return len(srv.Requests()) == 2 })
	if err := f.editor.Command(server.CommandCancel, map[string]any{"id": first.RunID}, nil); err != nil {
		t.Fatal(err)
	}
	if end := f.waitEnd(first.RunID); end != "Cancelled" {
		t.Fatalf("end %q", end)
	}
	if res := f.ask(map[string]any{"prompt": "and now?", "wait": true}); res.Answer != "fresh answer" {
		t.Fatalf("%+v", res)
	}
	reqs := srv.Requests()
	msgs := reqs[len(reqs)-1]["messages"].([]any)
	var callIDs, resultIDs []string
	for _, m := range msgs {
		m := m.(map[string]any)
		for _, c := range asSlice(m["tool_calls"]) {
			callIDs = append(callIDs, c.(map[string]any)["id"].(string))
		}
		if m["role"] == "tool" {
			resultIDs = append(resultIDs, m["tool_call_id"].(string))
			if !strings.Contains(m["content"].(string), "cancelled") {
				t.Errorf("the result says %q", m["content"])
			}
		}
	}
	if len(callIDs) != 1 || strings.Join(callIDs, ",") != strings.Join(resultIDs, ",") {
		t.Fatalf("calls %v, results %v: every call needs its result", callIDs, resultIDs)
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// TestAWaitedRunCancelledSaysSoInWords: an ask that waits for its run and
// whose run is cancelled (the user's Cancel, from another request) answers
// in words, not with Go's "context canceled".
func TestAWaitedRunCancelledSaysSoInWords(t *testing.T) {
	srv := llmtest.NewOpenAIResponder(t, func(map[string]any) llmtest.Turn {
		return llmtest.Turn{Text: "late", Delay: servertest.Timeout}
	})
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	done := make(chan askResult, 1)
	go func() {
		var res askResult
		f.editor.Command(server.CommandAsk, map[string]any{"prompt": "think", "wait": true}, &res)
		done <- res
	}()
	toolstest.Poll(t, "the model call", func() bool { return len(srv.Requests()) == 1 })
	if err := f.editor.Command(server.CommandCancel, nil, nil); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res.State != "cancelled" || res.Answer != "Agent run cancelled." {
		t.Fatalf("%+v", res)
	}
}
