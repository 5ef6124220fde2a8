package acp_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun/agentruntest"
	"github.com/agent-lsp/agent-lsp/tools/mcp/mcptest"
)

// lastCommands is the latest available_commands_update's command names.
func lastCommands(updates []sdk.SessionUpdate) []string {
	var names []string
	for _, u := range updates {
		if u.AvailableCommandsUpdate != nil {
			names = names[:0]
			for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
				names = append(names, c.Name)
			}
		}
	}
	return names
}

func (f *fixture) waitCommands(t *testing.T) []string {
	t.Helper()
	var names []string
	f.editor.waitUntil(t, "available_commands_update", func() bool {
		updates, _, _, _ := f.editor.snapshot()
		names = lastCommands(updates)
		return names != nil
	})
	return names
}

// The "/" menu lists the modes, the conversation's housekeeping, the
// notes and the project's prompt files; a command runs without a model
// call, a mode command with words runs them in the mode, a prompt file
// is the turn's prompt.
func TestSlashCommands(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "Looked."}, llmtest.Turn{Text: "Reviewed."})
	f := newFixture(t, map[string]string{
		".agent-lsp/prompts/review.md":   "# Review the change\nLook for bugs in what changed.\n",
		".agent-lsp/prompts/Bad Name.md": "never listed",
		".agent-lsp/prompts/ask.md":      "a built-in's name: the built-in wins",
	}, srv, fixtureOptions{})
	s := f.newSession()
	names := f.waitCommands(t)
	want := []string{"ask", "code", "plan", "new", "compact", "notes", "forget", "review"}
	if !slices.Equal(names, want) {
		t.Fatalf("commands = %v, want %v", names, want)
	}

	if r := f.prompt(s.SessionId, sdk.TextBlock("/notes")); r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("/notes: %s", r.StopReason)
	}
	if got := agentText(f.updates()); !strings.Contains(got, "No notes yet") {
		t.Errorf("/notes answered %q", got)
	}
	if _, err := f.conn.Prompt(f.ctx(), sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("/forget twelve")}}); err == nil || !strings.Contains(err.Error(), "note's number") {
		t.Errorf("/forget twelve: %v, want a clear error", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the commands called the model %d times", n)
	}

	// /ask with words: the mode switches (the client is told) and they run in it.
	f.prompt(s.SessionId, sdk.TextBlock("/ask what is here?"))
	updates := f.updates()
	if m := lastMode(updates); m != "ask" {
		t.Errorf("current_mode_update = %q, want ask", m)
	}
	if v := lastOption(updates, "mode"); v != "ask" {
		t.Errorf("config_option_update mode = %q, want ask", v)
	}
	if task := llmtest.LastUserText(srv.Requests()[0]); !strings.Contains(task, "Ask mode") || !strings.HasSuffix(task, "what is here?") {
		t.Errorf("task = %q", task)
	}

	// A prompt file is the prompt, with the words after it.
	f.prompt(s.SessionId, sdk.TextBlock("/review the parser"))
	if task := llmtest.LastUserText(srv.Requests()[1]); !strings.Contains(task, "Look for bugs in what changed.") || !strings.HasSuffix(task, "the parser") {
		t.Errorf("task = %q", task)
	}

	// /new starts over: the model no longer sees the earlier turns.
	f.prompt(s.SessionId, sdk.TextBlock("/new"))
	if got := agentText(f.updates()); !strings.Contains(got, "Started over") {
		t.Errorf("/new answered %q", got)
	}
	// A word that is no command is the user's words.
	srv2 := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "Paths."})
	g := newFixture(t, nil, srv2, fixtureOptions{})
	g.prompt(g.newSession().SessionId, sdk.TextBlock("/usr/bin is where?"))
	if task := llmtest.LastUserText(srv2.Requests()[0]); !strings.HasSuffix(task, "/usr/bin is where?") {
		t.Errorf("task = %q", task)
	}
}

func (f *fixture) updates() []sdk.SessionUpdate {
	u, _, _, _ := f.editor.snapshot()
	return u
}

func lastMode(updates []sdk.SessionUpdate) sdk.SessionModeId {
	var m sdk.SessionModeId
	for _, u := range updates {
		if u.CurrentModeUpdate != nil {
			m = u.CurrentModeUpdate.CurrentModeId
		}
	}
	return m
}

// lastOption is an option's value in the latest config_option_update.
func lastOption(updates []sdk.SessionUpdate, id string) string {
	v := ""
	for _, u := range updates {
		if u.ConfigOptionUpdate != nil {
			v = optionValue(u.ConfigOptionUpdate.ConfigOptions, id)
		}
	}
	return v
}

func optionValue(opts []sdk.SessionConfigOption, id string) string {
	for _, o := range opts {
		if o.Select != nil && string(o.Select.Id) == id {
			return string(o.Select.CurrentValue)
		}
	}
	return ""
}

// The MCP servers' prompts are in the menu once the servers run: the
// user's and the client's start with the session. A prompt's command runs
// its text as the turn; its arguments are checked first.
func TestMCPPromptsAreSlashCommands(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "Reviewed."}, llmtest.Turn{Text: "Later."})
	f := newFixture(t, nil, srv, fixtureOptions{})
	agentruntest.WriteUserConfig(t, f.env["XDG_CONFIG_HOME"], fmt.Sprintf("[mcp.servers.mine]\ncommand = %q\n", mcptest.TestServer(t)))
	s := f.newSession(sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "theirs", Command: mcptest.TestServer(t), Args: []string{}, Env: []sdk.EnvVariable{}}})
	var menu []sdk.AvailableCommand
	f.editor.waitUntil(t, "both servers' prompts in the menu", func() bool {
		updates, _, _, _ := f.editor.snapshot()
		names := lastCommands(updates)
		menu = lastMenu(updates)
		return slices.Contains(names, "mine:review") && slices.Contains(names, "theirs:review")
	})
	review := menu[slices.IndexFunc(menu, func(c sdk.AvailableCommand) bool { return c.Name == "mine:review" })]
	if review.Description != "Review a file: Reviews one file. (MCP server mine)" || review.Input == nil || review.Input.Unstructured.Hint != "file=… [focus=…]" {
		t.Fatalf("the menu's entry: %+v %+v", review, review.Input)
	}

	f.prompt(s.SessionId, sdk.TextBlock(`/mine:review file=main.go focus="error handling"`))
	if task := llmtest.LastUserText(srv.Requests()[0]); !strings.Contains(task, "Review main.go for error handling.\n\n(assistant) I will read it first.") {
		t.Errorf("the turn's prompt = %q", task)
	}
	for _, c := range []struct{ prompt, want string }{
		{"/mine:review", "/mine:review: prompt review needs file; it takes: file, focus"},
		{"/mine:review main.go", `is not name=value; give the arguments as file=… [focus=…]`},
		{`/mine:review file="a`, "a double quote is not closed"},
		{"/mine:broken", "the prompt store is down"},
	} {
		if _, err := f.conn.Prompt(f.ctx(), sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(c.prompt)}}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.prompt, err, c.want)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("the refused commands called the model: %d calls", n)
	}
}

// lastMenu is the latest available_commands_update's commands.
func lastMenu(updates []sdk.SessionUpdate) []sdk.AvailableCommand {
	var menu []sdk.AvailableCommand
	for _, u := range updates {
		if u.AvailableCommandsUpdate != nil {
			menu = u.AvailableCommandsUpdate.AvailableCommands
		}
	}
	return menu
}
