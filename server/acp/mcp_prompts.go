package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools/mcp"
)

// The MCP servers' prompts are slash commands too: /SERVER:PROMPT. A
// server's show once it runs: the user's own servers start with the
// session (mcp.Pool.Warm), the client's and the project's with the first
// turn, as their tools do; the menu is sent again whenever a server starts
// or changes its prompts. The words after the command are the prompt's
// argument when it takes one, else name=value pairs.

func (s *session) mcpServers() []mcp.ServerConfig {
	return agentrun.MCPServers(s.currentSettings(), s.view.Root())
}

func (s *session) mcpPrompts() []mcp.Prompt {
	if s.pool == nil {
		return nil
	}
	return s.pool.Prompts(s.mcpServers())
}

func promptCommandName(p mcp.Prompt) string { return p.Server + ":" + p.Name }

// mcpPrompt is the prompt the command name runs, if any.
func (s *session) mcpPrompt(name string) (mcp.Prompt, bool) {
	ps := s.mcpPrompts()
	i := slices.IndexFunc(ps, func(p mcp.Prompt) bool { return promptCommandName(p) == name })
	if i < 0 {
		return mcp.Prompt{}, false
	}
	return ps[i], true
}

// promptCommand is p as the menu lists it; the hint names its arguments.
func promptCommand(p mcp.Prompt) sdk.AvailableCommand {
	desc := p.Description
	if desc == "" {
		desc = "Prompt " + p.Name
	}
	c := sdk.AvailableCommand{Name: promptCommandName(p), Description: desc + " (MCP server " + p.Server + ")"}
	if hint := argumentsHint(p); hint != "" {
		c.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: hint}}
	}
	return c
}

func argumentsHint(p mcp.Prompt) string {
	if len(p.Arguments) == 1 {
		a := p.Arguments[0]
		return strings.TrimSpace(cmpOr(a.Description, a.Name) + map[bool]string{true: "", false: " (optional)"}[a.Required])
	}
	var parts []string
	for _, a := range p.Arguments {
		part := a.Name + "=…"
		if !a.Required {
			part = "[" + part + "]"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " ")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// runMCPPrompt gets the prompt with the arguments input gives: its text
// is the turn's prompt.
func (a *Agent) runMCPPrompt(ctx context.Context, s *session, p mcp.Prompt, input string) (answer, prompt string, err error) {
	args, err := promptArguments(p, input)
	if err == nil {
		prompt, err = s.pool.GetPrompt(ctx, s.mcpServers(), p.Server, p.Name, args)
	}
	if err != nil {
		return "", "", sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("/%s: %v", promptCommandName(p), err)})
	}
	return "", prompt, nil
}

// promptArguments reads the words after a prompt's command: the whole of
// them is the argument of a prompt that takes one; otherwise name=value
// pairs, a value in double quotes holding spaces.
func promptArguments(p mcp.Prompt, input string) (map[string]string, error) {
	args := map[string]string{}
	if input == "" {
		return args, nil
	}
	if len(p.Arguments) == 1 && !strings.HasPrefix(input, p.Arguments[0].Name+"=") {
		args[p.Arguments[0].Name] = input
		return args, nil
	}
	words, err := splitQuoted(input)
	if err != nil {
		return nil, err
	}
	for _, w := range words {
		name, value, ok := strings.Cut(w, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("%q is not name=value; give the arguments as %s", w, cmpOr(argumentsHint(p), "nothing: the prompt takes none"))
		}
		args[name] = value
	}
	return args, nil
}

// splitQuoted splits s at spaces outside double quotes, the quotes removed.
func splitQuoted(s string) ([]string, error) {
	var words []string
	var b strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case !quoted && (r == ' ' || r == '\t' || r == '\n'):
			if inWord {
				words, inWord = append(words, b.String()), false
				b.Reset()
			}
		default:
			b.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("a double quote is not closed in %q", s)
	}
	if inWord {
		words = append(words, b.String())
	}
	return words, nil
}

// sendCommands sends s's menu when it differs from the one last sent.
func (a *Agent) sendCommands(s *session) {
	a.menus.Lock()
	defer a.menus.Unlock()
	cmds := s.commands()
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name + "\x00" + c.Description
	}
	key := strings.Join(names, "\x01")
	s.mu.Lock()
	same := s.announced == key
	s.announced = key
	s.mu.Unlock()
	if !same {
		a.update(s, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
	}
}

// mcpChanged sends the menu again to the sessions already told theirs,
// after an MCP server started or changed its prompts.
func (a *Agent) mcpChanged(string) {
	a.mu.Lock()
	open := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		open = append(open, s)
	}
	a.mu.Unlock()
	for _, s := range open {
		s.mu.Lock()
		told := s.announced != "" && !s.closed
		s.mu.Unlock()
		if told {
			a.sendCommands(s)
		}
	}
}
