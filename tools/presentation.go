package tools

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
)

// Kind is what a tool call does, as a client draws it (ACP's tool kinds).
type Kind string

const (
	KindRead    Kind = "read"
	KindEdit    Kind = "edit"
	KindSearch  Kind = "search"
	KindExecute Kind = "execute"
	KindThink   Kind = "think"
	KindOther   Kind = "other"
)

// Presentation is how a tool's calls are shown to the user, declared by
// the tool beside its definition (Present) and used by every wire: ACP's
// tool calls, the language server's progress, the trace.
type Presentation struct {
	Kind Kind
	// Title is a call's title from its arguments. Its words are escaped for
	// display by the Call helpers; a path is shown as name gives it.
	Title func(c Call) string
	// PathArg names the argument that is the file the call is about ("":
	// none), which a client may show as a location; LineArg, a 1-based line
	// in it.
	PathArg, LineArg string
}

// Call is a tool call's arguments as a title reads them.
type Call struct {
	args map[string]json.RawMessage
	// name shows a path the model gave as the user should read it.
	name func(path string) string
}

// String is an argument's string value, escaped ("" when absent).
func (c Call) String(key string) string {
	var s string
	_ = json.Unmarshal(c.args[key], &s)
	return Printable(s)
}

// Path is a path argument as the user should read it (the workspace's
// name for it where it is inside).
func (c Call) Path(key string) string {
	var s string
	_ = json.Unmarshal(c.args[key], &s)
	if c.name != nil {
		return c.name(s)
	}
	return Printable(s)
}

// Code is an argument shown inline as code: escaped, in a backtick run
// longer than any inside it.
func (c Call) Code(key string) string { return InlineCode(c.String(key)) }

// FirstLine is an argument's first line, cut to n runes (FirstLine).
func (c Call) FirstLine(key string, n int) string {
	var s string
	_ = json.Unmarshal(c.args[key], &s)
	return FirstLine(s, n)
}

// FirstLine is s's first non-blank line, escaped, cut to n runes.
func FirstLine(s string, n int) string {
	s = Printable(strings.SplitN(strings.TrimSpace(s), "\n", 2)[0])
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// InlineCode shows an escaped string inline as Markdown code.
func InlineCode(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + s + fence
}

var presentations sync.Map // tool name → Presentation

// Present declares how name's calls are shown; each tool calls it beside
// its definition.
func Present(name string, p Presentation) { presentations.Store(name, p) }

// Shown is a tool call as the user sees it.
type Shown struct {
	Title string
	Kind  Kind
	// Located: the tool names a file (PathArg), Path as the model gave it
	// ("" its root).
	Located bool
	Path    string
	Line    int // the LineArg's value (1-based), 0 none
}

// Show presents the call of tool name with args (raw JSON); name shows a
// path. A tool that declared nothing, or an MCP server's, is shown by its
// name.
func Show(tool string, args json.RawMessage, name func(path string) string) Shown {
	c := Call{name: name}
	_ = json.Unmarshal(args, &c.args)
	v, ok := presentations.Load(tool)
	if !ok {
		if rest, ok := strings.CutPrefix(tool, "mcp__"); ok {
			server, t, _ := strings.Cut(rest, "__")
			return Shown{Title: "MCP " + Printable(server) + ": " + Printable(t), Kind: KindOther}
		}
		return Shown{Title: Printable(tool), Kind: KindOther}
	}
	p := v.(Presentation)
	s := Shown{Title: p.Title(c), Kind: p.Kind}
	if p.PathArg != "" {
		s.Located = true
		_ = json.Unmarshal(c.args[p.PathArg], &s.Path)
	}
	if p.LineArg != "" {
		s.Line, _ = strconv.Atoi(string(c.args[p.LineArg]))
	}
	return s
}
