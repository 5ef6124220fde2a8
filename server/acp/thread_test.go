package acp_test

import (
	"regexp"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// The first turn titles the thread; message chunks carry one id per
// message (a new model call, a new message); the prompt's id is echoed.
func TestThreadTitleAndMessageIDs(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Text: "Reading first. ", Calls: []llmtest.Call{{Name: "list_files", Args: `{}`}}},
		llmtest.Turn{Text: "Two files here."},
		llmtest.Turn{Text: "Again."},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, fixtureOptions{})
	s := f.newSession()
	given := "0b9e5c2e-2f43-4d0e-9a57-3f1c1b3d2a10"
	resp, err := f.conn.Prompt(f.ctx(), sdk.PromptRequest{SessionId: s.SessionId, MessageId: &given,
		Prompt: []sdk.ContentBlock{sdk.TextBlock("What is in this folder?\nAnd why.")}})
	if err != nil || resp.UserMessageId == nil || *resp.UserMessageId != given {
		t.Fatalf("prompt: %+v, %v: want the message id echoed", resp, err)
	}
	updates := f.updates()
	var titles []string
	ids := map[string]string{} // message id → its text
	var order []string
	for _, u := range updates {
		if u.SessionInfoUpdate != nil && u.SessionInfoUpdate.Title != nil {
			titles = append(titles, *u.SessionInfoUpdate.Title)
		}
		if c := u.AgentMessageChunk; c != nil {
			if c.MessageId == nil || !uuidRE.MatchString(*c.MessageId) {
				t.Fatalf("message chunk without a UUID: %s", toJSON(c))
			}
			if _, seen := ids[*c.MessageId]; !seen {
				order = append(order, *c.MessageId)
			}
			ids[*c.MessageId] += c.Content.Text.Text
		}
	}
	if len(titles) != 1 || titles[0] != "What is in this folder?" {
		t.Errorf("titles = %q", titles)
	}
	last := ids[order[len(order)-1]]
	if len(order) < 2 || last != "Two files here." || !strings.HasSuffix(ids[order[len(order)-2]], "Reading first. ") {
		t.Errorf("messages = %v in order %v", ids, order)
	}
	// The second turn does not title the thread again; without an id from
	// the client the agent gives the user message one.
	r2 := f.prompt(s.SessionId, sdk.TextBlock("again"))
	if r2.UserMessageId == nil || !uuidRE.MatchString(*r2.UserMessageId) {
		t.Errorf("userMessageId = %v", r2.UserMessageId)
	}
	n := 0
	for _, u := range f.updates() {
		if u.SessionInfoUpdate != nil {
			n++
		}
	}
	if n != 1 {
		t.Errorf("session_info_update sent %d times", n)
	}
}
