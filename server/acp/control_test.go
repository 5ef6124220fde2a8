package acp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools/mcp/mcptest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// A command off the allowlist asks, Deny first; allowed it runs in the
// sandbox and its output shows, denied the model is told.
func TestCommandApprovalBothWays(t *testing.T) {
	for _, allow := range []bool{true, false} {
		name := map[bool]string{true: "allowed", false: "denied"}[allow]
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t,
				llmtest.Turn{Calls: []llmtest.Call{{Name: "execute_command", Args: `{"command":"printf approved-output"}`}}},
				llmtest.Turn{Text: "Ran it."},
			)
			f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, fixtureOptions{})
			if !allow {
				f.editor.answer = func(p sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
					return sdk.NewRequestPermissionOutcomeSelected(optionOfKind(p, sdk.PermissionOptionKindRejectOnce))
				}
			}
			s := f.newSession()
			f.prompt(s.SessionId, sdk.TextBlock("run printf"))
			updates, asked, _, _ := f.editor.snapshot()
			if len(asked) != 1 {
				t.Fatalf("permission requests = %d, want 1", len(asked))
			}
			kinds := []sdk.PermissionOptionKind{}
			for _, o := range asked[0].Options {
				kinds = append(kinds, o.Kind)
			}
			if len(kinds) != 3 || kinds[0] != sdk.PermissionOptionKindRejectOnce || kinds[1] != sdk.PermissionOptionKindAllowOnce || kinds[2] != sdk.PermissionOptionKindAllowAlways {
				t.Errorf("options = %v, want reject, allow once, allow always", kinds)
			}
			var question strings.Builder
			for _, c := range asked[0].ToolCall.Content {
				if c.Content != nil && c.Content.Content.Text != nil {
					question.WriteString(c.Content.Content.Text.Text)
				}
			}
			if want := "printf approved-output is not on the allowlist\nAlways allowing it lets exactly this run without asking in this workspace until agent-lsp exits (any other spelling asks again):\n  printf approved-output"; !strings.Contains(question.String(), want) {
				t.Errorf("the question %q does not hold %q", question.String(), want)
			}
			run := findCall(toolCalls(updates), sdk.ToolKindExecute, "Run `printf approved-output`")
			if run == nil || asked[0].ToolCall.ToolCallId != run.ID {
				t.Fatalf("the request is not about the command's tool call: %+v / %+v", asked[0].ToolCall, run)
			}
			got := contentText(run)
			if allow && (run.Status != sdk.ToolCallStatusCompleted || !strings.Contains(got, "approved-output") || !strings.Contains(got, "[exit code: 0]")) {
				t.Errorf("allowed command: %s %q", run.Status, got)
			}
			if !allow && (run.Status != sdk.ToolCallStatusFailed || !strings.Contains(got, "did not allow")) {
				t.Errorf("denied command: %s %q", run.Status, got)
			}
		})
	}
}

// A command decided at run time can be allowed once only: the request
// offers Deny and Allow once, and says why.
func TestACommandDecidedAtRunTimeIsOfferedOnceOnly(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "execute_command", Args: `{"command":"printf %s \"$HOME\""}`}}},
		llmtest.Turn{Text: "Ran it."},
	)
	f := newFixture(t, nil, srv, fixtureOptions{})
	s := f.newSession()
	f.prompt(s.SessionId, sdk.TextBlock("print home"))
	_, asked, _, _ := f.editor.snapshot()
	if len(asked) != 1 {
		t.Fatalf("permission requests = %d, want 1", len(asked))
	}
	var kinds []sdk.PermissionOptionKind
	for _, o := range asked[0].Options {
		kinds = append(kinds, o.Kind)
	}
	if len(kinds) != 2 || kinds[0] != sdk.PermissionOptionKindRejectOnce || kinds[1] != sdk.PermissionOptionKindAllowOnce {
		t.Errorf("options = %v, want reject, allow once", kinds)
	}
	var question strings.Builder
	for _, c := range asked[0].ToolCall.Content {
		if c.Content != nil && c.Content.Content.Text != nil {
			question.WriteString(c.Content.Content.Text.Text)
		}
	}
	if !strings.Contains(question.String(), "It can be allowed once only") {
		t.Errorf("the question does not say why: %q", question.String())
	}
}

// session/cancel answers the prompt with "cancelled" within 100 ms and
// kills the command the run was waiting on.
func TestCancelAnswersWithin100msAndKillsTheCommand(t *testing.T) {
	marker := toolstest.Marker()
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "execute_command", Args: `{"command":"sleep ` + marker + `"}`}}},
		llmtest.Turn{Text: "Fine."},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, fixtureOptions{})
	s := f.newSession()
	type result struct {
		resp sdk.PromptResponse
		err  error
		at   time.Time
	}
	done := make(chan result, 1)
	go func() {
		resp, err := f.conn.Prompt(f.ctx(), sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("sleep")}})
		done <- result{resp, err, time.Now()}
	}()
	toolstest.Poll(t, "the command to start", func() bool { return len(toolstest.Alive(marker)) > 0 })
	sent := time.Now()
	if err := f.conn.Cancel(f.ctx(), sdk.CancelNotification{SessionId: s.SessionId}); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt = %+v, %v; want stopReason cancelled", r.resp, r.err)
	}
	if took := r.at.Sub(sent); took > 100*time.Millisecond {
		t.Errorf("cancelled after %s, want < 100ms", took)
	}
	toolstest.Poll(t, "the command to be killed", func() bool { return len(toolstest.Alive(marker)) == 0 })

	t.Logf("session/cancel → prompt answered in %s", r.at.Sub(sent))
	// The session goes on; the call cut short has a result, as providers require.
	if resp := f.prompt(s.SessionId, sdk.TextBlock("hello")); resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("next turn = %s", resp.StopReason)
	}
	msgs, _ := srv.Requests()[1]["messages"].([]any)
	answered := false
	for _, m := range msgs {
		if m := m.(map[string]any); m["role"] == "tool" && m["tool_call_id"] == "call_1" && strings.Contains(toJSON(m["content"]), "cancelled by the user") {
			answered = true
		}
	}
	if !answered {
		t.Errorf("the cancelled call has no result in the next request: %s", toJSON(msgs))
	}
}

// A cancel while the model is thinking answers at once too.
func TestCancelDuringModelCall(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Delay: waitFor, Text: "too late"}, llmtest.Turn{Text: "Next."})
	f := newFixture(t, nil, srv, fixtureOptions{})
	s := f.newSession()
	done := make(chan sdk.PromptResponse, 1)
	go func() { done <- f.prompt(s.SessionId, sdk.TextBlock("think")) }()
	toolstest.Poll(t, "the model call", func() bool { return len(srv.Requests()) == 1 })
	sent := time.Now()
	f.conn.Cancel(f.ctx(), sdk.CancelNotification{SessionId: s.SessionId})
	if r := <-done; r.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("stopReason = %s", r.StopReason)
	}
	took := time.Since(sent)
	if took > 100*time.Millisecond {
		t.Errorf("cancelled after %s", took)
	}
	t.Logf("session/cancel during the model call → prompt answered in %s", took)
	// The same session's next turn waits for the cancelled one and goes on.
	if r := f.prompt(s.SessionId, sdk.TextBlock("again")); r.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("next turn = %s", r.StopReason)
	}
	if last := llmtest.LastUserText(srv.Requests()[1]); !strings.Contains(last, "was cancelled") {
		t.Errorf("next task = %q", last)
	}
}

// A persisted session loads on a new connection, replayed as updates, and continues.
func TestLoadReplaysAndContinues(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
		llmtest.Turn{Text: "It says alpha."},
		llmtest.Turn{Text: "Still alpha."},
	)
	f := newFixture(t, map[string]string{"a.txt": "alpha\n"}, srv, fixtureOptions{})
	s := f.newSession()
	f.prompt(s.SessionId, sdk.TextBlock("what does a.txt say?"))

	f.stop() // the editor restarts the agent
	f.connect(fixtureOptions{})
	list, err := f.conn.ListSessions(f.ctx(), sdk.ListSessionsRequest{Cwd: &f.root})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != s.SessionId || *list.Sessions[0].Title != "what does a.txt say?" {
		t.Fatalf("session/list = %+v, %v", list, err)
	}
	loaded, err := f.conn.LoadSession(f.ctx(), sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: f.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Modes == nil || loaded.Modes.CurrentModeId != "code" {
		t.Errorf("modes = %+v", loaded.Modes)
	}
	updates, _, _, _ := f.editor.snapshot()
	var kinds []string
	for _, u := range updates {
		switch {
		case u.UserMessageChunk != nil:
			kinds = append(kinds, "user:"+u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			kinds = append(kinds, "agent:"+u.AgentMessageChunk.Content.Text.Text)
		case u.ToolCall != nil:
			kinds = append(kinds, "tool:"+u.ToolCall.Title+":"+string(u.ToolCall.Status))
		}
	}
	want := []string{"user:what does a.txt say?", "tool:Read a.txt:completed", "agent:It says alpha."}
	if strings.Join(kinds, "|") != strings.Join(want, "|") {
		t.Errorf("replay = %q, want %q", kinds, want)
	}
	f.prompt(s.SessionId, sdk.TextBlock("and now?"))
	if n := llmtest.CountRole(srv.Requests()[2], "user"); n != 2 {
		t.Errorf("the continued conversation has %d user messages, want 2", n)
	}
	if _, err := f.conn.LoadSession(f.ctx(), sdk.LoadSessionRequest{SessionId: "nope", Cwd: f.root, McpServers: []sdk.McpServer{}}); err == nil {
		t.Error("loading an unknown session succeeded")
	}
}

// Ask mode offers the model only read-only tools.
func TestAskModeIsReadOnly(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "An answer.", Reasoning: "Weighing the options."})
	f := newFixture(t, nil, srv, fixtureOptions{})
	s := f.newSession()
	if _, err := f.conn.SetSessionMode(f.ctx(), sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "ask"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.conn.SetSessionMode(f.ctx(), sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "yolo"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
	f.prompt(s.SessionId, sdk.TextBlock("what is this?"))
	tools := toJSON(srv.Requests()[0]["tools"])
	for _, name := range []string{"write_file", "edit_file", "execute_command", "remember"} {
		if strings.Contains(tools, `"`+name+`"`) {
			t.Errorf("ask mode offers %s", name)
		}
	}
	if !strings.Contains(tools, `"read_file"`) {
		t.Errorf("ask mode lost read_file: %s", tools)
	}
	updates, _, _, _ := f.editor.snapshot()
	if th, ans := thoughtText(updates), agentText(updates); !strings.Contains(th, "Weighing the options.") || strings.Contains(ans, "Weighing") || !strings.HasSuffix(ans, "An answer.") {
		t.Errorf("reasoning should stream as thoughts, the answer as the message: %q / %q", th, ans)
	}
}

// Plan mode shows the plan as plan entries, asks before running it, and
// marks the steps as they run.
func TestPlanModeSendsPlanEntries(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Text: `{"steps":[{"goal":"Read a.txt","done":"its content is known"},{"goal":"Report it","done":"answered"}]}`},
		llmtest.Turn{Text: "Read it. STEP DONE"},
		llmtest.Turn{Text: "Reported. STEP DONE"},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, fixtureOptions{})
	s := f.newSession()
	f.conn.SetSessionMode(f.ctx(), sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "plan"})
	if r := f.prompt(s.SessionId, sdk.TextBlock("look at a.txt")); r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %s", r.StopReason)
	}
	updates, asked, _, _ := f.editor.snapshot()
	var plans [][]sdk.PlanEntry
	for _, u := range updates {
		if u.Plan != nil {
			plans = append(plans, u.Plan.Entries)
		}
	}
	if len(plans) < 3 || len(plans[0]) != 2 || plans[0][0].Content != "Read a.txt" || plans[0][0].Status != sdk.PlanEntryStatusPending {
		t.Fatalf("plans = %+v", plans)
	}
	last := plans[len(plans)-1]
	if last[0].Status != sdk.PlanEntryStatusCompleted || last[1].Status != sdk.PlanEntryStatusCompleted {
		t.Errorf("final plan = %+v", last)
	}
	if len(asked) != 1 || !strings.HasPrefix(*asked[0].ToolCall.Title, "Run this plan") || asked[0].Options[0].Kind != sdk.PermissionOptionKindRejectOnce {
		t.Errorf("plan confirmation = %+v", asked)
	}
	if got := agentText(updates); !strings.Contains(got, "Read a.txt") {
		t.Errorf("the plan's answer was not sent: %q", got)
	}
	if !strings.Contains(thoughtText(updates), "Read it.") {
		t.Errorf("the steps' text should stream as thoughts: %q", thoughtText(updates))
	}
}

// The client's MCP servers start with the session; their tools ask
// first, about the tool call; one on a transport we lack is reported.
func TestClientMCPServersAreUsed(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__test__greet", Args: `{"name":"Ada"}`}}},
		llmtest.Turn{Text: "Greeted."},
	)
	f := newFixture(t, nil, srv, fixtureOptions{})
	s := f.newSession(
		sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "test", Command: mcptest.TestServer(t), Args: []string{}, Env: []sdk.EnvVariable{{Name: "MCPTEST_DIR", Value: t.TempDir()}}}},
		sdk.McpServer{Sse: &sdk.McpServerSseInline{Name: "old", Type: "sse", Url: "http://127.0.0.1:1/sse", Headers: []sdk.HttpHeader{}}},
	)
	f.prompt(s.SessionId, sdk.TextBlock("greet Ada"))
	updates, asked, _, _ := f.editor.snapshot()
	text := agentText(updates)
	if !strings.Contains(text, "MCP servers from the client: test (stdio)") || !strings.Contains(text, "left out: old (the old HTTP+SSE transport") {
		t.Errorf("no word about the client's MCP servers: %q", text)
	}
	call := findCall(toolCalls(updates), sdk.ToolKindOther, "MCP test: greet")
	if call == nil || call.Status != sdk.ToolCallStatusCompleted || !strings.Contains(contentText(call), "Ada") {
		t.Fatalf("MCP call = %+v", call)
	}
	if len(asked) != 1 || asked[0].ToolCall.ToolCallId != call.ID || asked[0].Options[0].Kind != sdk.PermissionOptionKindRejectOnce {
		t.Errorf("permission = %+v, want one about the MCP call, Deny first", asked)
	}
}

// Paths the model or the client give stay in the workspace.
func TestPathsConfinedToWorkspace(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"../outside.txt"}`}}},
		llmtest.Turn{Text: "Could not."},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, fixtureOptions{})
	s := f.newSession()
	f.prompt(s.SessionId, sdk.TextBlock("read it"), sdk.ResourceLinkBlock("secret", "file:///etc/passwd"))
	updates, _, reads, _ := f.editor.snapshot()
	if len(reads) != 0 {
		t.Errorf("the client was asked for %v", reads)
	}
	read := findCall(toolCalls(updates), sdk.ToolKindRead, "Read")
	if read == nil || read.Status != sdk.ToolCallStatusFailed || len(read.Locations) != 0 {
		t.Errorf("read outside = %+v", read)
	}
	if task := llmtest.FirstUserText(srv.Requests()[0]); !strings.Contains(task, "/etc/passwd (outside the workspace") {
		t.Errorf("task = %q", task)
	}
}

func TestPromptErrors(t *testing.T) {
	f := newFixture(t, nil, nil, fixtureOptions{env: map[string]string{"AGENT_LSP_PROVIDER": "nope"}})
	s := f.newSession()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if _, err := f.conn.Prompt(ctx, sdk.PromptRequest{SessionId: "missing", Prompt: []sdk.ContentBlock{sdk.TextBlock("x")}}); err == nil || !strings.Contains(err.Error(), "unknown session") {
		t.Errorf("unknown session: %v", err)
	}
	if _, err := f.conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{}}); err == nil || !strings.Contains(err.Error(), "no text") {
		t.Errorf("empty prompt: %v", err)
	}
	if _, err := f.conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("x")}}); err == nil || !strings.Contains(err.Error(), "agent-lsp:") {
		t.Errorf("bad settings: %v", err)
	}
	if _, err := f.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "relative/dir", McpServers: []sdk.McpServer{}}); err == nil {
		t.Error("a relative cwd was accepted")
	}
}

// The iteration cap ends the turn with max_turn_requests, and what was
// staged is still offered.
func TestIterationCapIsMaxTurnRequests(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"b.txt","content":"b\n"}`}}},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, fixtureOptions{env: map[string]string{"AGENT_LSP_MAX_ITERATIONS": "1"}})
	s := f.newSession()
	if r := f.prompt(s.SessionId, sdk.TextBlock("write b")); r.StopReason != sdk.StopReasonMaxTurnRequests {
		t.Fatalf("stopReason = %s", r.StopReason)
	}
	updates, asked, _, writes := f.editor.snapshot()
	if !strings.Contains(agentText(updates), "iteration cap (1 model calls)") || len(asked) != 1 || writes[f.path("b.txt")] != "b\n" {
		t.Errorf("answer %q, asked %d, writes %v", agentText(updates), len(asked), writes)
	}
}

// A note the agent wants kept is asked about at the end of the turn, and
// kept only when the client says so; the sandbox level is reported once.
func TestNotesAskedAndKept(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "remember", Args: `{"note":"tests live in tests/"}`}}},
		llmtest.Turn{Text: "Noted."},
		llmtest.Turn{Text: "Yes."},
	)
	f := newFixture(t, nil, srv, fixtureOptions{})
	s := f.newSession()
	f.prompt(s.SessionId, sdk.TextBlock("remember where tests live"))
	updates, asked, _, _ := f.editor.snapshot()
	if len(asked) != 1 || *asked[0].ToolCall.Title != "Keep the agent's notes?" || !strings.Contains(contentText(findCall(toolCalls(updates), sdk.ToolKindEdit, "Keep")), "tests live in tests/") {
		t.Fatalf("asked = %+v", asked)
	}
	if !strings.Contains(thoughtText(updates)+agentText(updates), "commands run in the sandbox at level") {
		t.Error("the sandbox level was not reported")
	}
	f.prompt(s.SessionId, sdk.TextBlock("still there?"))
	if sys := toJSON(srv.Requests()[2]["messages"]); !strings.Contains(sys, "tests live in tests/") {
		t.Errorf("the kept note is not in the next turn's instructions")
	}
}

// Loading a session open on this connection takes its latest turn.
func TestLoadOpenSessionSeesItsLastTurn(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "First answer."})
	f := newFixture(t, nil, srv, fixtureOptions{})
	s := f.newSession()
	f.prompt(s.SessionId, sdk.TextBlock("first question"))
	if _, err := f.conn.LoadSession(f.ctx(), sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: f.root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	updates, _, _, _ := f.editor.snapshot()
	if got := agentText(updates); !strings.HasSuffix(got, "First answer.First answer.") {
		t.Errorf("replay after the live turn = %q", got)
	}
}
