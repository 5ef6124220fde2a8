package acp_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestEverythingTheClientIsShownIsShownNotObeyed: in plan mode, the plan's
// steps (plan entries and the question before it runs), a command's
// approval and output, the steps' text, the proposal's question, a
// session's title and its replay reach the client escaped, visibly; the
// diff of the proposal carries the files' text as it is.
func TestEverythingTheClientIsShownIsShownNotObeyed(t *testing.T) {
	plan, _ := json.Marshal(map[string]any{"steps": []map[string]string{
		{"goal": "Look " + toolstest.HostileText, "done": "seen"},
		{"goal": "Change a.txt", "done": "changed"},
	}})
	content, _ := json.Marshal("line one " + toolstest.HostileText + "\n")
	command, _ := json.Marshal(toolstest.HostilePrintf)
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Text: string(plan)},
		llmtest.Turn{Text: "Running " + toolstest.HostileText, Calls: []llmtest.Call{{ID: "c1", Name: "execute_command", Args: `{"command":` + string(command) + `}`}}},
		llmtest.Turn{Text: "Ran it. STEP DONE"},
		llmtest.Turn{Calls: []llmtest.Call{{ID: "c2", Name: "write_file", Args: `{"path":"a.txt","content":` + string(content) + `}`}}},
		llmtest.Turn{Text: "Changed " + toolstest.HostileText + ". STEP DONE"},
	)
	f := newFixture(t, map[string]string{"a.txt": "alpha \x1b[8m\n"}, srv, fixtureOptions{})
	s := f.newSession()
	f.conn.SetSessionMode(f.ctx(), sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "plan"})
	if r := f.prompt(s.SessionId, sdk.TextBlock("go "+toolstest.HostileText)); r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %s", r.StopReason)
	}
	updates, asked, _, writes := f.editor.snapshot()
	if len(asked) != 3 {
		t.Fatalf("asked %d times, want 3 (the plan, the command, the proposal): %s", len(asked), toJSON(asked))
	}
	all := checkShown(t, "live", map[string]any{"updates": updates, "asked": asked})
	for _, want := range []string{
		"Look " + toolstest.HostileShown,    // a plan entry, and the plan asked about
		toolstest.HostilePrintfShown,        // the command's output
		"Changed " + toolstest.HostileShown, // a step's text
	} {
		if !strings.Contains(all, want) {
			t.Errorf("%q is not shown escaped:\n%s", want, all)
		}
	}
	var plans, planAsked bool
	for _, u := range updates {
		plans = plans || u.Plan != nil && strings.Contains(u.Plan.Entries[0].Content, toolstest.HostileShown)
	}
	for _, c := range asked[0].ToolCall.Content {
		planAsked = planAsked || c.Content != nil && strings.Contains(c.Content.Content.Text.Text, toolstest.HostileShown)
	}
	if !plans || !planAsked {
		t.Errorf("the plan entries (%v) or the plan's question (%v) do not show the step escaped", plans, planAsked)
	}
	// The diff and what is written are the files' text, as it is.
	d := diffs(findCall(toolCalls(updates), sdk.ToolKindEdit, "Apply"))
	if len(d) != 1 || !strings.Contains(d[0].NewText, "\x1b]52") || d[0].OldText == nil || !strings.Contains(*d[0].OldText, "\x1b[8m") {
		t.Errorf("the proposal's diff does not carry the file's text as it is: %s", toJSON(d))
	}
	if !strings.Contains(writes[f.path("a.txt")], "\x1b]52") {
		t.Errorf("what was written is not the file's text as it is: %q", writes[f.path("a.txt")])
	}

	// A new connection lists the session and replays it: escaped too.
	f.stop()
	f.connect(fixtureOptions{})
	list, err := f.conn.ListSessions(f.ctx(), sdk.ListSessionsRequest{Cwd: &f.root})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.conn.LoadSession(f.ctx(), sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: f.root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	replayed, _, _, _ := f.editor.snapshot()
	all = checkShown(t, "replayed", map[string]any{"list": list, "updates": replayed})
	if !strings.Contains(all, "go "+toolstest.HostileShown) {
		t.Errorf("the prompt is not shown escaped in the list and replay:\n%s", all)
	}
}

// TestAFailedTurnsErrorIsShownNotObeyed: a provider's words in the error
// that ends a prompt reach the client escaped.
func TestAFailedTurnsErrorIsShownNotObeyed(t *testing.T) {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "refused " + toolstest.HostileText, "type": "invalid_request_error"}})
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Status: 400, Body: string(body)})
	f := newFixture(t, nil, srv, fixtureOptions{})
	s := f.newSession()
	_, err := f.conn.Prompt(f.ctx(), sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("go")}})
	var re *sdk.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("the prompt did not fail with a request error: %v", err)
	}
	if found := toolstest.Obeyable(re.Message); len(found) > 0 || !strings.Contains(re.Message, "refused "+toolstest.HostileShown) {
		t.Errorf("the error's message holds %q raw, or not the provider's words escaped: %q", found, re.Message)
	}
	updates, _, _, _ := f.editor.snapshot()
	checkShown(t, "updates", updates)
}

// checkShown fails the test for any string in v, as the client decodes it,
// that a terminal or an editor would obey, leaving out what is not shown as
// text: a diff's old and new text (the files' content), a tool call's raw
// input (the call as the model made it). It returns the strings it saw.
func checkShown(t *testing.T, what string, v any) string {
	t.Helper()
	var tree any
	if err := json.Unmarshal([]byte(toJSON(v)), &tree); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case string:
			if found := toolstest.Obeyable(v); len(found) > 0 {
				t.Errorf("%s: %s holds %q raw: %q", what, key, found, v)
			}
			b.WriteString(v + "\n")
		case []any:
			for _, e := range v {
				walk(key, e)
			}
		case map[string]any:
			for k, e := range v {
				if k != "oldText" && k != "newText" && k != "rawInput" {
					walk(k, e)
				}
			}
		}
	}
	walk("", tree)
	return b.String()
}
