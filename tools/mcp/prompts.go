package mcp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/tools"
)

// A server's prompts (prompts/list) are what a client may offer the user
// as slash commands; getting one (prompts/get) gives the text of a turn.
// They are the server's words: the user picks one, the model never does.

// maxPrompts bounds the prompts taken from one server: each is a menu entry.
const maxPrompts = 64

// maxPromptText bounds the text one prompt gives a turn.
const maxPromptText = 64 << 10

// Prompt is one of a ready server's prompts.
type Prompt struct {
	Server      string // the server's configured name
	Name        string // the server's name for it
	Description string // one line, printable
	Arguments   []PromptArgument
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// promptNameRE is what a prompt's name may be to be offered: it becomes a
// slash command, typed by the user.
var promptNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// listPrompts lists the prompts of a server that says it has some; a
// server without them, or failing to list them, has none (its tools are
// what matters). What it left out is said in warnings for the log: the
// model never sees prompts, so its notices do not carry them.
func listPrompts(ctx context.Context, server string, sess *sdk.ClientSession) ([]Prompt, []string) {
	if declared(sess).Prompts == nil {
		return nil, nil
	}
	var out []Prompt
	var warns []string
	for p, err := range sess.Prompts(ctx, nil) {
		if err != nil {
			return out, append(warns, "listing its prompts: "+tools.Printable(err.Error()))
		}
		switch {
		case len(out) == maxPrompts:
			return out, append(warns, fmt.Sprintf("it lists more than %d prompts; only the first %d are offered", maxPrompts, maxPrompts))
		case !promptNameRE.MatchString(p.Name):
			warns = append(warns, fmt.Sprintf("prompt %q left out: its name is not one a user can type", tools.Printable(p.Name)))
			continue
		}
		pr := Prompt{Server: server, Name: p.Name, Description: oneLine(cmp(p.Title, p.Description), 120)}
		if p.Title != "" && p.Description != "" {
			pr.Description = oneLine(p.Title+": "+p.Description, 120)
		}
		for _, a := range p.Arguments {
			if a == nil || !promptNameRE.MatchString(a.Name) {
				continue
			}
			pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: oneLine(cmp(a.Description, a.Title), 80), Required: a.Required})
		}
		out = append(out, pr)
	}
	return out, warns
}

func oneLine(s string, n int) string { return tools.Printable(tools.FirstLine(s, n)) }

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (s *server) listPrompts(ctx context.Context, sess *sdk.ClientSession) []Prompt {
	prompts, warns := listPrompts(ctx, s.cfg.Name, sess)
	for _, w := range warns {
		s.pool.log.Warn("mcp: prompts", "server", s.cfg.Name, "warning", w)
	}
	return prompts
}

// refreshPrompts lists the prompts again after the server said they changed.
func (s *server) refreshPrompts() {
	s.relist(func(ctx context.Context, c *live) (func(), bool) {
		prompts := s.listPrompts(ctx, c.sess)
		return func() { s.prompts = prompts }, true
	})
}

// Prompts are the prompts of cfgs' enabled servers that are ready now, by
// server then name. Nothing is started: a server's prompts show once a run
// (or Warm) started it.
func (p *Pool) Prompts(cfgs []ServerConfig) []Prompt {
	var out []Prompt
	for _, c := range cfgs {
		if !c.Enabled {
			continue
		}
		if s := p.lookup(c); s != nil {
			s.mu.Lock()
			if s.state == StateReady {
				out = append(out, s.prompts...)
			}
			s.mu.Unlock()
		}
	}
	slices.SortStableFunc(out, func(a, b Prompt) int { return strings.Compare(a.Server+"\x00"+a.Name, b.Server+"\x00"+b.Name) })
	return out
}

// Warm starts, without waiting, the enabled servers of cfgs that the user
// configured or an ACP client handed over, so their prompts can be offered
// before the first run. Servers from LSP settings (asked about first, as
// a repository may fill them) and from the project are left to the first
// run that uses them.
func (p *Pool) Warm(cfgs []ServerConfig) {
	for _, c := range cfgs {
		if c.Enabled && c.Problem == "" && (c.Origin == "user" || c.Origin == "client") {
			s := p.server(c)
			go func() { _, _ = s.ensure(p.ctx) }()
		}
	}
}

// ErrNoPrompt is the error of GetPrompt for a prompt no ready server of
// cfgs offers.
var ErrNoPrompt = errors.New("no such prompt")

// GetPrompt gets the prompt name of server with args and returns its text:
// its messages' text, in order. Arguments must be the prompt's own, and
// the required ones given. Images and binary resources are described.
func (p *Pool) GetPrompt(ctx context.Context, cfgs []ServerConfig, server, name string, args map[string]string) (string, error) {
	i := slices.IndexFunc(cfgs, func(c ServerConfig) bool { return c.Name == server && c.Enabled })
	if i < 0 {
		return "", fmt.Errorf("MCP server %s: %w", server, ErrNoPrompt)
	}
	s := p.lookup(cfgs[i])
	if s == nil {
		return "", fmt.Errorf("MCP server %s is not running: %w", server, ErrNoPrompt)
	}
	s.mu.Lock()
	c, prompts := s.conn, s.prompts
	s.mu.Unlock()
	j := slices.IndexFunc(prompts, func(pr Prompt) bool { return pr.Name == name })
	if c == nil || j < 0 {
		return "", fmt.Errorf("MCP server %s has no prompt %s now: %w", server, name, ErrNoPrompt)
	}
	if err := checkArguments(prompts[j], args); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	s.begin()
	res, err := c.sess.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	s.end()
	if err != nil {
		s.mu.Lock()
		err = s.redact(err)
		s.mu.Unlock()
		return "", fmt.Errorf("MCP server %s, prompt %s: %s", server, name, tools.Printable(err.Error()))
	}
	return promptText(res), nil
}

// checkArguments refuses an argument the prompt does not take and a
// required one left out, naming what it takes.
func checkArguments(p Prompt, args map[string]string) error {
	var names, missing []string
	for _, a := range p.Arguments {
		names = append(names, a.Name)
		if _, ok := args[a.Name]; a.Required && !ok {
			missing = append(missing, a.Name)
		}
	}
	for k := range args {
		if !slices.Contains(names, k) {
			return fmt.Errorf("prompt %s takes no argument %q; it takes: %s", p.Name, k, argumentList(names))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("prompt %s needs %s; it takes: %s", p.Name, strings.Join(missing, ", "), argumentList(names))
	}
	return nil
}

func argumentList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// promptText joins a prompt's messages, described as a tool's result is;
// an assistant's message is marked, so the turn says whose words are whose.
func promptText(res *sdk.GetPromptResult) string {
	var b strings.Builder
	for _, m := range res.Messages {
		if m == nil {
			continue
		}
		text := contentText(m.Content, &Outcome{})
		if text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		if m.Role == "assistant" {
			b.WriteString("(assistant) ")
		}
		b.WriteString(text)
		if b.Len() > maxPromptText {
			return strings.ToValidUTF8(b.String()[:maxPromptText], "") + fmt.Sprintf("\n\n(the prompt was cut at %d bytes)", maxPromptText)
		}
	}
	return b.String()
}
