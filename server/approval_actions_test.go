package server_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// questionActions lists the code actions that answer a waiting question,
// on a line of a file as the user would ask for them.
func questionActions(t *testing.T, f *fixture, u string) []action {
	var out []action
	for _, a := range codeActions(t, f, map[string]any{
		"textDocument": map[string]any{"uri": u},
		"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}},
		"context":      map[string]any{"diagnostics": []any{}},
	}) {
		if a.Command.Command == server.CommandApprove {
			out = append(out, a)
		}
	}
	return out
}

// TestApprovalsAreCodeActionsWhereTheClientCannotAnswer: Helix answers
// showMessageRequest with "Method not found" and ALE never answers it;
// neither declares it can. The question is then also three code actions
// (Deny first), a message says so, and the run waits for the pick: the
// command runs once allowed, never when denied, and "always"
// lets the same command run again without asking.
func TestApprovalsAreCodeActionsWhereTheClientCannotAnswer(t *testing.T) {
	for _, c := range []struct {
		name string
		caps servertest.Caps
	}{
		{"helix", servertest.Caps{NoMessageRequest: true}},
		{"ale", servertest.Caps{NeverAnswer: true, NoApplyEdit: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := `{"command":"printf made-by-agent"}`
			srv := llmtest.NewOpenAIServer(t,
				llmtest.Turn{Calls: []llmtest.Call{call("execute_command", cmd)}},
				llmtest.Turn{Calls: []llmtest.Call{call("execute_command", `{"command":"printf allowed-once"}`)}},
				llmtest.Turn{Calls: []llmtest.Call{call("execute_command", cmd)}},
				llmtest.Turn{Calls: []llmtest.Call{call("execute_command", cmd)}},
				llmtest.Turn{Text: "done"},
			)
			f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, nil)
			f.editor.Initialize(f.root, c.caps, nil)
			u := string(f.uri("a.txt"))
			f.editor.Open(f.uri("a.txt"), "a\n")
			run := f.ask(map[string]any{"prompt": "touch it", "uri": u})
			pick := func(decision string) {
				t.Helper()
				var actions []action
				toolstest.Poll(t, "the question's code actions", func() bool { actions = questionActions(t, f, u); return len(actions) == 3 })
				var titles []string
				for _, a := range actions {
					titles = append(titles, a.Title)
				}
				if !strings.HasPrefix(titles[0], "Deny: printf ") || !strings.HasPrefix(titles[1], "Allow once: ") || !strings.HasPrefix(titles[2], "Always allow in this workspace: ") {
					t.Fatalf("the actions: %q", titles)
				}
				for _, a := range actions {
					if a.Command.Arguments[0]["decision"] == decision {
						if err := f.editor.Command(a.Command.Command, a.Command.Arguments[0], nil); err != nil {
							t.Fatal(err)
						}
						return
					}
				}
				t.Fatalf("no %s action", decision)
			}
			observed := func(i int) string {
				t.Helper()
				toolstest.Poll(t, "the model's next call", func() bool { return len(srv.Requests()) > i })
				msgs := srv.Requests()[i]["messages"].([]any)
				return msgs[len(msgs)-1].(map[string]any)["content"].(string)
			}
			pick("deny")
			if o := observed(1); !strings.Contains(o, "did not allow") {
				t.Fatalf("denied: %q", o)
			}
			pick("once")
			if o := observed(2); !strings.Contains(o, "allowed-once") {
				t.Fatalf("allowed once: %q", o)
			}
			pick("always")
			if o := observed(3); !strings.Contains(o, "made-by-agent") {
				t.Fatalf("always allowed: %q", o)
			}
			// The same command again runs without a question.
			if o := observed(4); !strings.Contains(o, "made-by-agent") {
				t.Fatalf("after always allowing: %q", o)
			}
			toolstest.Poll(t, "the run's end", func() bool {
				return slices.ContainsFunc(f.editor.Messages(), func(m string) bool { return strings.Contains(m, "Completed · ") })
			})
			if n := len(questionActions(t, f, u)); n != 0 {
				t.Fatalf("%d answers still offered after the run", n)
			}
			said := slices.ContainsFunc(f.editor.Messages(), func(m string) bool {
				return strings.Contains(m, run.RunID+" wants to run:\nprintf made-by-agent") && strings.Contains(m, `Pick "Deny", "Allow once" or "Always allow in this workspace" from the code actions`)
			})
			if !said {
				t.Fatalf("no message said where to answer: %q", f.editor.Messages())
			}
			if err := f.editor.Command(server.CommandApprove, map[string]any{"id": "approval-1", "decision": "once"}, nil); err == nil || !strings.Contains(err.Error(), "no question approval-1 is waiting") {
				t.Fatalf("an answer to a settled question: %v", err)
			}
			if err := f.editor.Command(server.CommandApprove, map[string]any{"id": "approval-1", "decision": "yes"}, nil); err == nil || !strings.Contains(err.Error(), `decision "yes": once, always or deny`) {
				t.Fatalf("a bad decision: %v", err)
			}
		})
	}
}

// TestAClientThatAnswersPromptsGetsNoQuestionActions: VS Code and Neovim
// declare they answer showMessageRequest; they get the prompt alone.
func TestAClientThatAnswersPromptsGetsNoQuestionActions(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("execute_command", `{"command":"touch x"}`)}},
		llmtest.Turn{Text: "done"},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	f.editor.SetApprove("Deny")
	f.ask(map[string]any{"prompt": "touch", "wait": true})
	if len(f.editor.Asked()) != 1 {
		t.Fatalf("asked %d times", len(f.editor.Asked()))
	}
	for _, m := range f.editor.Messages() {
		if strings.Contains(m, "from the code actions") {
			t.Fatalf("a client that answers prompts was told to use code actions: %q", m)
		}
	}
}

// TestACommandDecidedAtRunTimeIsAllowedOnceOnly: a command whose words are
// decided when it runs cannot be allowed for good, so neither the prompt
// nor the code actions offer "Always allow".
func TestACommandDecidedAtRunTimeIsAllowedOnceOnly(t *testing.T) {
	cmd := `{"command":"printf %s \"$HOME\""}`
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("execute_command", cmd)}},
		llmtest.Turn{Calls: []llmtest.Call{call("execute_command", cmd)}},
		llmtest.Turn{Text: "done"},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{NoMessageRequest: true}, nil)
	u := string(f.uri("a.txt"))
	f.editor.Open(f.uri("a.txt"), "a\n")
	f.ask(map[string]any{"prompt": "print home", "uri": u})
	for range 2 {
		var actions []action
		toolstest.Poll(t, "the question's code actions", func() bool { actions = questionActions(t, f, u); return len(actions) > 0 })
		var titles []string
		for _, a := range actions {
			titles = append(titles, a.Title)
		}
		if len(titles) != 2 || !strings.HasPrefix(titles[0], "Deny: ") || !strings.HasPrefix(titles[1], "Allow once: ") {
			t.Fatalf("the actions: %q", titles)
		}
		if err := f.editor.Command(actions[1].Command.Command, actions[1].Command.Arguments[0], nil); err != nil {
			t.Fatal(err)
		}
		toolstest.Poll(t, "the question to go", func() bool { return len(questionActions(t, f, u)) == 0 })
	}
	toolstest.Poll(t, "the run's end", func() bool {
		return slices.ContainsFunc(f.editor.Messages(), func(m string) bool { return strings.Contains(m, "Completed · ") })
	})
	said := slices.ContainsFunc(f.editor.Messages(), func(m string) bool {
		return strings.Contains(m, "It can be allowed once only") && strings.Contains(m, `Pick "Deny" or "Allow once" from the code actions`)
	})
	if !said {
		t.Fatalf("the message: %q", f.editor.Messages())
	}
}
