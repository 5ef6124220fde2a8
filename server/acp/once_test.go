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
		protocol        string // a text tool protocol over the wire model ("": native; "whole": a server that does not stream; "part": one that streams half)
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
		{"streamed in part", "part", []llmtest.Turn{{Reasoning: "Half of it streamed, the rest came whole.", Text: "Half streamed, half whole."}},
			"Half streamed, half whole.", "Half of it streamed, the rest came whole."},
		{"cut off by the token limit and continued", "", []llmtest.Turn{{Text: "The first half, ", Finish: "length"}, {Text: "then the rest."}},
			"The first half, then the rest.", ""},
		{"after a malformed answer (a JSON tool protocol)", toolproto.JSON, []llmtest.Turn{
			{Text: `{"thought": "nearly", "response": "Fixed it."`},
			{Text: `{"thought": "again", "response": "Fixed it."}`}}, "Fixed it.", ""},
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
			case "part":
				o.provider = func(ctx context.Context, s config.Settings) (llm.Provider, error) {
					p, err := openai.New(openai.Config{Model: s.Model, BaseURL: s.BaseURL})
					return partlyStreamed{p}, err
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
			note := sandboxNote(updates)
			if got := strings.ReplaceAll(agentText(updates), note, ""); got != c.answer {
				t.Errorf("the message chunks say %q, want the answer once: %q", got, c.answer)
			}
			if got := strings.ReplaceAll(thoughtText(updates), note, ""); c.thought != "" && got != c.thought {
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

// TestPlanAnswerReachesTheClientOnce: in plan mode the steps' text streams
// as thoughts and the answer, composed when the plan ends, is sent whole
// once; the replay of the loaded session shows that same answer.
func TestPlanAnswerReachesTheClientOnce(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Text: `{"steps":[{"goal":"Read a.txt","done":"its content is known"},{"goal":"Report it","done":"answered"}]}`},
		llmtest.Turn{Text: "Read it: alpha. STEP DONE"},
		llmtest.Turn{Text: "It says alpha. STEP DONE"},
	)
	f := newFixture(t, map[string]string{"a.txt": "alpha\n"}, srv, fixtureOptions{})
	s := f.newSession()
	if _, err := f.conn.SetSessionMode(f.ctx(), sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	f.prompt(s.SessionId, sdk.TextBlock("what does a.txt say?"))
	updates, _, _, _ := f.editor.snapshot()
	answer := strings.ReplaceAll(agentText(updates), sandboxNote(updates), "")
	for _, once := range []string{"The plan is done", "Read it: alpha.", "It says alpha."} {
		if n := strings.Count(answer, once); n != 1 {
			t.Errorf("%q is in the message chunks %d times, want once:\n%s", once, n, answer)
		}
	}
	if !strings.Contains(thoughtText(updates), "It says alpha.") {
		t.Errorf("the steps' text should stream as thoughts: %q", thoughtText(updates))
	}
	before := len(updates)
	if _, err := f.conn.LoadSession(f.ctx(), sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: f.root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	updates, _, _, _ = f.editor.snapshot()
	if got := agentText(updates[before:]); got != answer {
		t.Errorf("the replay's message chunks say %q, want the turn's answer %q", got, answer)
	}
}

// sandboxNote is the first turn's note of the sandbox level: a thought at
// the full level, a message below it.
func sandboxNote(updates []sdk.SessionUpdate) string {
	for _, u := range updates {
		var text *sdk.ContentBlockText
		switch {
		case u.AgentThoughtChunk != nil:
			text = u.AgentThoughtChunk.Content.Text
		case u.AgentMessageChunk != nil:
			text = u.AgentMessageChunk.Content.Text
		}
		if text != nil && strings.Contains(text.Text, "commands run in the sandbox") {
			return text.Text
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

// partlyStreamed is a provider that streams the first half of its text
// and reasoning; the rest comes only with the whole response.
type partlyStreamed struct{ llm.Provider }

func (p partlyStreamed) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	onText, onReasoning := req.OnText, req.OnReasoning
	req.OnText, req.OnReasoning = nil, nil
	resp, err := p.Provider.Chat(ctx, req)
	if err != nil {
		return resp, err
	}
	if onReasoning != nil && resp.Reasoning != "" {
		onReasoning(resp.Reasoning[:len(resp.Reasoning)/2])
	}
	if onText != nil && resp.Text != "" {
		onText(resp.Text[:len(resp.Text)/2])
	}
	return resp, nil
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
