package acp_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/llm/openai"
	"github.com/agent-lsp/agent-lsp/llm/toolproto"
)

// TestEachAnswerReachesTheClientOnce: clients append message chunks, so the
// chunks of a turn, concatenated, are the model's answer exactly once —
// streamed where the provider streams, whole where it does not — and the
// same for thoughts and reasoning, live and after session/load.
func TestEachAnswerReachesTheClientOnce(t *testing.T) {
	for _, c := range []struct {
		name            string
		protocol        string // a text tool protocol over the wire model ("": native; "whole": a server that does not stream)
		turns           []llmtest.Turn
		answer, thought string
	}{
		{"streamed", "", []llmtest.Turn{{Text: "Just an answer, in several words."}}, "Just an answer, in several words.", ""},
		{"after tool calls", "", []llmtest.Turn{
			{Text: "Looking first. ", Calls: []llmtest.Call{{ID: "c1", Name: "read_file", Args: `{"path":"a.txt"}`}}},
			{Text: "Read it: alpha."}}, "Looking first. Read it: alpha.", ""},
		{"with reasoning", "", []llmtest.Turn{{Reasoning: "Weighing the options carefully.", Text: "An answer."}}, "An answer.", "Weighing the options carefully."},
		{"not streamed", "whole", []llmtest.Turn{{Reasoning: "Thought it through.", Text: "Answered at once."}}, "Answered at once.", "Thought it through."},
		{"not streamed (a JSON tool protocol)", toolproto.JSON,
			[]llmtest.Turn{{Reasoning: "Thought whole.", Text: `{"thought": "easy", "response": "Answered whole."}`}}, "Answered whole.", "Thought whole."},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t, c.turns...)
			var o fixtureOptions
			switch c.protocol {
			case "":
			case "whole":
				o.provider = func(ctx context.Context, s config.Settings) (llm.Provider, error) {
					p, err := openai.New(openai.Config{Model: s.Model, BaseURL: s.BaseURL})
					return wholeAnswers{p}, err
				}
			default:
				proto, err := toolproto.ByName(c.protocol)
				if err != nil {
					t.Fatal(err)
				}
				o.provider = func(ctx context.Context, s config.Settings) (llm.Provider, error) {
					p, err := openai.New(openai.Config{Model: s.Model, BaseURL: s.BaseURL})
					return toolproto.Wrap(p, proto), err
				}
			}
			f := newFixture(t, map[string]string{"a.txt": "alpha\n"}, srv, o)
			s := f.newSession()
			f.prompt(s.SessionId, sdk.TextBlock("a question"))
			updates, _, _, _ := f.editor.snapshot()
			if got := agentText(updates); got != c.answer {
				t.Errorf("the message chunks say %q, want the answer once: %q", got, c.answer)
			}
			if got := strings.ReplaceAll(thoughtText(updates), sandboxThought(updates), ""); c.thought != "" && got != c.thought {
				t.Errorf("the thought chunks say %q, want the reasoning once: %q", got, c.thought)
			}
			// The replay of a loaded session shows the answer once too.
			before := len(updates)
			if _, err := f.conn.LoadSession(f.ctx(), sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: f.root, McpServers: []sdk.McpServer{}}); err != nil {
				t.Fatal(err)
			}
			updates, _, _, _ = f.editor.snapshot()
			if got := agentText(updates[before:]); got != c.answer {
				t.Errorf("the replay's message chunks say %q, want %q", got, c.answer)
			}
		})
	}
}

// sandboxThought is the first turn's note of the sandbox level, when it
// came as a thought.
func sandboxThought(updates []sdk.SessionUpdate) string {
	for _, u := range updates {
		if u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil && strings.Contains(u.AgentThoughtChunk.Content.Text.Text, "commands run in the sandbox") {
			return u.AgentThoughtChunk.Content.Text.Text
		}
	}
	return ""
}

// wholeAnswers is a provider that does not stream: no text or reasoning
// comes before the whole response.
type wholeAnswers struct{ llm.Provider }

func (w wholeAnswers) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	req.OnText, req.OnReasoning = nil, nil
	return w.Provider.Chat(ctx, req)
}

// TestWhatTheClientShowsIsShownNotObeyed: an answer, a thought and a
// command's output carrying escape sequences reach the client escaped.
func TestWhatTheClientShowsIsShownNotObeyed(t *testing.T) {
	hostile := "clip\x1b]52;c;cGF5bG9hZA==\x07 \x1b]0;title\x07 \x1b[2K \u009b2J \u202eevil"
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Reasoning: "Thinking " + hostile, Calls: []llmtest.Call{{ID: "c1", Name: "execute_command", Args: `{"command":"cat esc.txt"}`}}},
		llmtest.Turn{Text: "Done. " + hostile},
	)
	f := newFixture(t, map[string]string{"esc.txt": "file says " + hostile + "\n"}, srv, fixtureOptions{})
	s := f.newSession()
	f.prompt(s.SessionId, sdk.TextBlock("go"))
	updates, _, _, _ := f.editor.snapshot()
	var shown strings.Builder
	shown.WriteString(agentText(updates) + thoughtText(updates))
	for _, c := range toolCalls(updates) {
		shown.WriteString(c.Title + contentText(c))
	}
	for _, c := range []string{"\x1b", "\u009b", "\u202e", "\x07"} {
		if strings.Contains(shown.String(), c) {
			t.Errorf("the client was sent %q raw:\n%s", c, shown.String())
		}
	}
	for _, want := range []string{`Done. clip\x1b]52;c;`, `file says clip\x1b]52`, `Thinking clip\x1b]52`} {
		if !strings.Contains(shown.String(), want) {
			t.Errorf("%q is not shown escaped:\n%s", want, shown.String())
		}
	}
}
