package acp

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/projectfile"
)

// The session's slash commands, which clients list in their "/" menu
// (available_commands_update): the modes, the conversation's housekeeping,
// the notes, the project's prompt files and the MCP servers' prompts
// (mcp_prompts.go). A prompt whose text starts
// with "/name" runs the command instead of a turn; a mode command or a
// prompt file followed by words runs those words as the turn.

// command is one built-in slash command.
type command struct {
	name, description, hint string
	// run does the command; its text is the answer shown. A mode command
	// with words returns them as the turn's prompt instead.
	run func(a *Agent, ctx context.Context, s *session, input string) (answer, prompt string, err error)
}

var builtinCommands = []command{
	{name: "new", description: "Start the conversation over: the model forgets this thread's earlier turns (the thread stays on screen)", run: (*Agent).cmdNew},
	{name: "compact", description: "Have the model summarise the conversation so far, to free its context", run: (*Agent).cmdCompact},
	{name: "notes", description: "List the notes agent-lsp keeps for this workspace (given to the model every turn)", run: (*Agent).cmdNotes},
	{name: "forget", description: "Forget a note by its number, or all of them", hint: "note number, or all", run: (*Agent).cmdForget},
}

// modeCommands switch the mode; with words, the words run in it.
func modeCommands() []command {
	var out []command
	for _, m := range agentrun.Modes {
		out = append(out, command{name: string(m.Mode), description: m.Name + " mode: " + m.Description, hint: "optional: what to do in this mode",
			run: func(a *Agent, ctx context.Context, s *session, input string) (string, string, error) {
				a.setMode(s, sdk.SessionModeId(m.Mode))
				if input != "" {
					return "", input, nil
				}
				return "Now in " + m.Name + " mode.", "", nil
			}})
	}
	return out
}

// promptDir holds the project's prompt files: NAME.md is the command /NAME.
const promptDir = ".agent-lsp/prompts"

// promptFileLimit caps a prompt file, as every project file is capped.
const promptFileLimit = 64 << 10

var commandNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)

// promptFiles lists the project's prompt files by command name; a name a
// built-in command has is the built-in's. The directory is listed only
// when it is a real directory of the workspace (never through a link).
func promptFiles(root string, taken func(string) bool) map[string]string {
	dir := root
	for _, part := range strings.Split(promptDir, "/") {
		dir = filepath.Join(dir, part)
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			return nil
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || !e.Type().IsRegular() || !commandNameRE.MatchString(name) || taken(name) {
			continue
		}
		out[name] = promptDir + "/" + e.Name()
	}
	return out
}

// commands are s's commands, built-in ones first.
func (s *session) commands() []sdk.AvailableCommand {
	var out []sdk.AvailableCommand
	for _, c := range s.builtins() {
		ac := sdk.AvailableCommand{Name: c.name, Description: c.description}
		if c.hint != "" {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: c.hint}}
		}
		out = append(out, ac)
	}
	files := s.promptFiles()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		out = append(out, sdk.AvailableCommand{Name: name, Description: promptDescription(s.cwd, files[name]),
			Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "optional: more for the prompt"}}})
	}
	for _, p := range s.mcpPrompts() {
		out = append(out, promptCommand(p))
	}
	return out
}

func (s *session) builtins() []command { return append(modeCommands(), builtinCommands...) }

func (s *session) promptFiles() map[string]string {
	builtins := s.builtins()
	return promptFiles(s.cwd, func(name string) bool {
		return slices.ContainsFunc(builtins, func(c command) bool { return c.name == name })
	})
}

// promptDescription is a prompt file's first line, for the menu.
func promptDescription(root, rel string) string {
	data, _, err := projectfile.Read(root, rel, 512)
	if err != nil {
		return "Prompt file " + rel
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(strings.TrimLeft(line, "# ")); line != "" {
			return tools.Displayable(tools.FirstLine(line, 80)) + " (" + rel + ")"
		}
	}
	return "Prompt file " + rel
}

// announceCommands sends s's commands once the client knows the session:
// after the answer to the request of ctx (the SDK ends a request's context
// once its answer is written).
func (a *Agent) announceCommands(ctx context.Context, s *session) {
	go func() {
		<-ctx.Done()
		a.sendCommands(s)
	}()
}

// slashCommand splits a prompt "/name rest" into its command and input;
// ok is false for a prompt that names no command of s.
func (s *session) slashCommand(blocks []sdk.ContentBlock) (name, input string, ok bool) {
	if len(blocks) == 0 || blocks[0].Text == nil {
		return "", "", false
	}
	text := strings.TrimSpace(blocks[0].Text.Text)
	if !strings.HasPrefix(text, "/") {
		return "", "", false
	}
	name, input, _ = strings.Cut(text[1:], " ")
	name = strings.TrimSpace(name)
	if slices.ContainsFunc(s.builtins(), func(c command) bool { return c.name == name }) {
		return name, strings.TrimSpace(input), true
	}
	if _, ok := s.promptFiles()[name]; ok {
		return name, strings.TrimSpace(input), true
	}
	if _, ok := s.mcpPrompt(name); ok {
		return name, strings.TrimSpace(input), true
	}
	return "", "", false
}

// runCommand runs the command name; prompt is the turn it asks for, if any.
func (a *Agent) runCommand(ctx context.Context, s *session, name, input string) (answer, prompt string, err error) {
	for _, c := range s.builtins() {
		if c.name == name {
			return c.run(a, ctx, s, input)
		}
	}
	if p, ok := s.mcpPrompt(name); ok {
		return a.runMCPPrompt(ctx, s, p, input)
	}
	rel := s.promptFiles()[name]
	data, cut, err := projectfile.Read(s.cwd, rel, promptFileLimit)
	if err != nil {
		return "", "", sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("/%s: reading %s: %v", name, rel, err)})
	}
	prompt = strings.TrimSpace(string(data))
	if cut {
		prompt += fmt.Sprintf("\n\n(%s was cut at %d bytes.)", rel, promptFileLimit)
	}
	if input != "" {
		prompt += "\n\n" + input
	}
	return "", prompt, nil
}

func (a *Agent) cmdNew(ctx context.Context, s *session, input string) (string, string, error) {
	s.resetHistory()
	if err := s.save(); err != nil {
		return "", "", requestError(err)
	}
	return "Started over: the model no longer sees this thread's earlier turns.", input, nil
}

func (a *Agent) cmdCompact(ctx context.Context, s *session, input string) (string, string, error) {
	settings, provider, err := a.resolve(ctx, s)
	if err != nil {
		return "", "", requestError(err)
	}
	done, err := agentrun.Compact(ctx, settings, provider, s.historyRef())
	if err != nil {
		return "", "", requestError(err)
	}
	if err := s.save(); err != nil {
		return "", "", requestError(err)
	}
	if !done {
		return "Nothing to compact yet: the conversation is short.", "", nil
	}
	return "Compacted: the earlier turns are now a summary the model keeps.", "", nil
}

func (a *Agent) cmdNotes(ctx context.Context, s *session, input string) (string, string, error) {
	notes := s.memory.Notes()
	if len(notes) == 0 {
		return "No notes yet: the agent proposes them (remember) and you keep them when you apply its changes.", "", nil
	}
	var b strings.Builder
	b.WriteString("Notes for this workspace (`/forget N` forgets one):\n")
	for i, n := range notes {
		fmt.Fprintf(&b, "%d. %s\n", i+1, tools.Printable(n))
	}
	return b.String(), "", nil
}

func (a *Agent) cmdForget(ctx context.Context, s *session, input string) (string, string, error) {
	index := 0
	if input != "all" {
		n, err := strconv.Atoi(input)
		if err != nil || n < 1 {
			return "", "", sdk.NewInvalidParams(map[string]any{"error": "/forget takes a note's number (see /notes) or all"})
		}
		index = n
	}
	n, err := s.memory.Forget(index)
	if err != nil {
		return "", "", sdk.NewInvalidParams(map[string]any{"error": "/forget: " + err.Error()})
	}
	return fmt.Sprintf("Forgot %d note(s).", n), "", nil
}
