package acp_test

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestInitialize(t *testing.T) {
	f := newFixture(t, nil, nil, fixtureOptions{})
	// A client asking for a version we do not speak gets ours.
	resp, err := f.conn.Initialize(f.ctx(), sdk.InitializeRequest{ProtocolVersion: 7})
	if err != nil {
		t.Fatal(err)
	}
	if resp.ProtocolVersion != 1 {
		t.Errorf("protocolVersion = %d, want 1", resp.ProtocolVersion)
	}
	caps := resp.AgentCapabilities
	if !caps.LoadSession || !caps.PromptCapabilities.EmbeddedContext || !caps.PromptCapabilities.Image || caps.PromptCapabilities.Audio {
		t.Errorf("capabilities = %+v", caps)
	}
	if resp.AgentInfo == nil || resp.AgentInfo.Name != "agent-lsp" {
		t.Errorf("agentInfo = %+v", resp.AgentInfo)
	}
}

// A whole turn: a read through the editor's unsaved buffer, an edit shown
// as a diff, the answer streamed, the proposal accepted and written
// through the editor, disk untouched by us.
func TestPromptTurnReadsBufferEditsAndWritesThroughClient(t *testing.T) {
	disk := "def greet():\n    return \"Hello from disk\"\n"
	unsaved := "def greet():\n    return \"Hello from the buffer\"\n"
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"hello.py"}`}}},
		llmtest.Turn{Text: "Changing it.", Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"hello.py","old_string":"Hello from the buffer","new_string":"Hello from the agent"}`}}},
		llmtest.Turn{Text: "Changed the greeting."},
	)
	f := newFixture(t, map[string]string{"hello.py": disk}, srv, fixtureOptions{})
	f.editor.setBuffer(f.path("hello.py"), unsaved)
	s := f.newSession()
	if s.Modes == nil || s.Modes.CurrentModeId != "code" || len(s.Modes.AvailableModes) != 3 {
		t.Errorf("modes = %+v", s.Modes)
	}

	resp := f.prompt(s.SessionId, sdk.TextBlock("change the greeting"))
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %s", resp.StopReason)
	}
	updates, asked, reads, writes := f.editor.snapshot()
	if len(reads) == 0 || reads[0] != f.path("hello.py") {
		t.Errorf("fs/read_text_file calls = %v", reads)
	}
	calls := toolCalls(updates)
	read := findCall(calls, sdk.ToolKindRead, "Read hello.py")
	if read == nil || read.Status != sdk.ToolCallStatusCompleted || len(read.Locations) != 1 || read.Locations[0].Path != f.path("hello.py") {
		t.Fatalf("read call = %+v (calls %+v)", read, calls)
	}
	if got := contentText(read); !strings.Contains(got, "Hello from the buffer") || strings.Contains(got, "Hello from disk") {
		t.Errorf("read result shows %q, want the unsaved buffer", got)
	}
	edit := findCall(calls, sdk.ToolKindEdit, "Edit hello.py")
	if edit == nil || edit.Status != sdk.ToolCallStatusCompleted {
		t.Fatalf("edit call = %+v", edit)
	}
	d := diffs(edit)
	if len(d) != 1 || d[0].Path != f.path("hello.py") || d[0].OldText == nil || *d[0].OldText != unsaved || !strings.Contains(d[0].NewText, "Hello from the agent") {
		t.Errorf("edit diff = %+v", d)
	}
	if got := agentText(updates); !strings.Contains(got, "Changing it.") || !strings.Contains(got, "Changed the greeting.\n\nTests: not run: no test touches") {
		t.Errorf("answer streamed = %q", got)
	}
	if len(asked) != 1 {
		t.Fatalf("permission requests = %d, want 1 (the proposal)", len(asked))
	}
	if first := asked[0].Options[0]; first.Kind != sdk.PermissionOptionKindRejectOnce {
		t.Errorf("first option = %+v, want the safe one (reject)", first)
	}
	want := "def greet():\n    return \"Hello from the agent\"\n"
	if writes[f.path("hello.py")] != want {
		t.Errorf("fs/write_text_file = %q, want %q", writes, want)
	}
	if got := f.disk("hello.py"); got != disk {
		t.Errorf("disk changed to %q: the client writes, not us", got)
	}
	proposal := findCall(calls, sdk.ToolKindEdit, "Apply the agent's change")
	if proposal == nil || proposal.Status != sdk.ToolCallStatusCompleted || !strings.Contains(contentText(proposal), "Applied through the editor") {
		t.Errorf("proposal call = %+v", proposal)
	}
	// The model saw the buffer, not disk.
	if body := srv.Requests()[1]; !strings.Contains(toJSON(body), "Hello from the buffer") {
		t.Errorf("the model was not given the buffer's text")
	}
}

// Rejecting the proposal writes nothing, and the next turn's model knows.
func TestPromptProposalRejected(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"new.txt","content":"fresh\n"}`}}},
		llmtest.Turn{Text: "Wrote it."},
		llmtest.Turn{Text: "Understood."},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, fixtureOptions{})
	f.editor.answer = func(p sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		return sdk.NewRequestPermissionOutcomeSelected(optionOfKind(p, sdk.PermissionOptionKindRejectOnce))
	}
	s := f.newSession()
	if resp := f.prompt(s.SessionId, sdk.TextBlock("make new.txt")); resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %s", resp.StopReason)
	}
	updates, asked, _, writes := f.editor.snapshot()
	if len(asked) != 1 || len(writes) != 0 || f.disk("new.txt") != "" {
		t.Fatalf("asked %d, writes %v, disk %q: a rejected proposal must write nothing", len(asked), writes, f.disk("new.txt"))
	}
	write := findCall(toolCalls(updates), sdk.ToolKindEdit, "Write new.txt")
	if d := diffs(write); len(d) != 1 || d[0].OldText != nil || d[0].NewText != "fresh\n" {
		t.Errorf("new file diff = %+v", d)
	}
	proposal := findCall(toolCalls(updates), sdk.ToolKindEdit, "Apply the agent's change")
	if proposal == nil || proposal.Status != sdk.ToolCallStatusFailed || !strings.Contains(contentText(proposal), "Rejected") {
		t.Errorf("proposal call = %+v", proposal)
	}
	f.prompt(s.SessionId, sdk.TextBlock("ok"))
	if last := llmtest.LastUserText(srv.Requests()[2]); !strings.Contains(last, "did not accept the changes") || !strings.HasSuffix(last, "ok") {
		t.Errorf("next task = %q, want the rejection noted", last)
	}
}

// Without fs capabilities the agent reads disk and writes the accepted
// proposal itself, after the answer.
func TestPromptWithoutClientFilesWritesDiskAfterPermission(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"a.txt","old_string":"one","new_string":"two"}`}}},
		llmtest.Turn{Text: "Done."},
	)
	f := newFixture(t, map[string]string{"a.txt": "one\n"}, srv, fixtureOptions{caps: &sdk.ClientCapabilities{}})
	f.editor.onAsk = func(sdk.RequestPermissionRequest) {
		if got := f.disk("a.txt"); got != "one\n" {
			t.Errorf("disk = %q before the permission answer", got)
		}
	}
	s := f.newSession()
	f.prompt(s.SessionId, sdk.TextBlock("one to two"))
	_, asked, reads, _ := f.editor.snapshot()
	if len(reads) != 0 || len(asked) != 1 {
		t.Errorf("reads %v, asked %d", reads, len(asked))
	}
	if got := f.disk("a.txt"); got != "two\n" {
		t.Errorf("disk = %q, want the accepted change", got)
	}
}

// A buffer edited after the agent read it refuses the write.
func TestProposalRefusedWhenBufferChanged(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"a.txt","old_string":"one","new_string":"two"}`}}},
		llmtest.Turn{Text: "Done."},
	)
	f := newFixture(t, map[string]string{"a.txt": "one\n"}, srv, fixtureOptions{})
	f.editor.onAsk = func(sdk.RequestPermissionRequest) { f.editor.setBuffer(f.path("a.txt"), "one, edited by the user\n") }
	s := f.newSession()
	f.prompt(s.SessionId, sdk.TextBlock("one to two"))
	updates, _, _, writes := f.editor.snapshot()
	if len(writes) != 0 {
		t.Errorf("writes = %v over the user's edit", writes)
	}
	proposal := findCall(toolCalls(updates), sdk.ToolKindEdit, "Apply the agent's change")
	if proposal == nil || proposal.Status != sdk.ToolCallStatusFailed || !strings.Contains(contentText(proposal), "changed while the agent worked") {
		t.Errorf("proposal call = %+v", proposal)
	}
}

// A whole file the editor attaches is that file's buffer for the turn: a
// search sees its unsaved text without asking the editor about every file.
func TestEmbeddedBufferIsSearched(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "search", Args: `{"pattern":"needle"}`}}},
		llmtest.Turn{Text: "Found it."},
	)
	f := newFixture(t, map[string]string{"a.txt": "hay\n", "b.txt": "more hay\n"}, srv, fixtureOptions{})
	s := f.newSession()
	unsaved := "hay\nneedle, unsaved\n"
	f.prompt(s.SessionId, sdk.TextBlock("find the needle in "), sdk.ResourceBlock(sdk.EmbeddedResourceResource{
		TextResourceContents: &sdk.TextResourceContents{Uri: "file://" + f.path("a.txt"), Text: unsaved}}))
	updates, _, reads, _ := f.editor.snapshot()
	search := findCall(toolCalls(updates), sdk.ToolKindSearch, "Search `needle`")
	if search == nil || !strings.Contains(contentText(search), "a.txt:2: needle, unsaved") {
		t.Fatalf("search = %+v", search)
	}
	if len(reads) != 0 {
		t.Errorf("the search asked the editor for %v", reads)
	}
	if task := llmtest.FirstUserText(srv.Requests()[0]); !strings.Contains(task, "`a.txt`, as the editor has it") || !strings.Contains(task, "needle, unsaved") {
		t.Errorf("task = %q", task)
	}
}

// A second prompt on a busy session cancels the first (the SDK does, as the
// protocol has it) and runs once the first has unwound.
func TestSecondPromptCancelsTheFirst(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Delay: waitFor, Text: "slow"}, llmtest.Turn{Text: "Second."})
	f := newFixture(t, nil, srv, fixtureOptions{})
	s := f.newSession()
	first := make(chan sdk.PromptResponse, 1)
	go func() { first <- f.prompt(s.SessionId, sdk.TextBlock("one")) }()
	toolstest.Poll(t, "the first model call", func() bool { return len(srv.Requests()) == 1 })
	if r := f.prompt(s.SessionId, sdk.TextBlock("two")); r.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("second = %s", r.StopReason)
	}
	if r := <-first; r.StopReason != sdk.StopReasonCancelled {
		t.Errorf("first = %s", r.StopReason)
	}
}
