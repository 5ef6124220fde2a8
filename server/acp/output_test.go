package acp_test

import (
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

// runCommandTurn runs one command through a turn and returns the updates
// about its tool call, in order, and how long the turn took.
func runCommandTurn(t *testing.T, command string, caps *sdk.ClientCapabilities) ([]sdk.SessionUpdate, time.Duration) {
	t.Helper()
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "execute_command", Args: toJSON(map[string]string{"command": command})}}},
		llmtest.Turn{Text: "Ran it."},
	)
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, fixtureOptions{caps: caps})
	s := f.newSession()
	start := time.Now()
	f.prompt(s.SessionId, sdk.TextBlock("run it"))
	took := time.Since(start)
	var id sdk.ToolCallId
	var out []sdk.SessionUpdate
	for _, u := range f.updates() {
		if u.ToolCall != nil && u.ToolCall.Kind == sdk.ToolKindExecute {
			id = u.ToolCall.ToolCallId
		}
		if (u.ToolCall != nil && u.ToolCall.ToolCallId == id) || (u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == id) {
			out = append(out, u)
		}
	}
	return out, took
}

// A command's output shows while it runs, before its result.
func TestCommandOutputStreams(t *testing.T) {
	updates, _ := runCommandTurn(t, "echo line1; sleep 0.5; echo line2", nil)
	var live []string
	final := ""
	for _, u := range updates[1:] {
		c := u.ToolCallUpdate
		text := ""
		for _, tc := range c.Content {
			if tc.Content != nil && tc.Content.Content.Text != nil {
				text += tc.Content.Content.Text.Text
			}
		}
		if c.Status != nil && *c.Status == sdk.ToolCallStatusCompleted {
			final = text
			break
		}
		live = append(live, text)
	}
	if len(live) == 0 || !strings.Contains(live[0], "line1") || strings.Contains(live[0], "line2") {
		t.Fatalf("output while running = %q", live)
	}
	if !strings.Contains(final, "line1\nline2") || !strings.Contains(final, "[exit code: 0]") {
		t.Errorf("result = %q", final)
	}
}

// In the terminal form (a client that declares _meta.terminal_output) the
// call holds a display-only terminal fed through _meta, and ends with
// terminal_exit; the command still runs in our sandbox.
func TestCommandOutputTerminalForm(t *testing.T) {
	caps := &sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Meta: map[string]any{"terminal_output": true}}
	updates, _ := runCommandTurn(t, "echo line1; exit 3", caps)
	start := updates[0].ToolCall
	if len(start.Content) != 1 || start.Content[0].Terminal == nil || start.Content[0].Terminal.TerminalId != string(start.ToolCallId) ||
		!strings.Contains(toJSON(start.Meta), `"terminal_info"`) {
		t.Fatalf("start = %s", toJSON(start))
	}
	var data strings.Builder
	var exit any
	for _, u := range updates[1:] {
		m := u.ToolCallUpdate.Meta
		if o, ok := m["terminal_output"].(map[string]any); ok {
			data.WriteString(o["data"].(string))
		}
		if e, ok := m["terminal_exit"].(map[string]any); ok {
			exit = e["exit_code"]
		}
	}
	if data.String() != "line1\n" || exit != float64(3) {
		t.Errorf("terminal data %q, exit %v", data.String(), exit)
	}
}

// A command printing 10 MB is shown capped and coalesced: a few updates a
// second of at most a tail each, never 10 MB of JSON-RPC.
func TestCommandOutputFloodIsCapped(t *testing.T) {
	updates, took := runCommandTurn(t, "head -c 10000000 /dev/zero | tr '\\0' x; echo; echo done", nil)
	wire := 0
	for _, u := range updates {
		wire += len(toJSON(u))
	}
	streamed := len(updates) - 2 // the start and the result
	if most := int(took/(200*time.Millisecond)) + 2; streamed > most {
		t.Errorf("%d output updates in %s: more than one per 200 ms", streamed, took)
	}
	if wire > 1<<20 {
		t.Errorf("%d bytes of updates for a 10 MB output", wire)
	}
	t.Logf("10 MB of output: %d updates, %d bytes of JSON in %s", len(updates), wire, took)
}
