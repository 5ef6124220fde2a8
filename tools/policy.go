package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// DefaultAllowlist holds read-only commands that run without asking. An entry
// matches a simple command whose first words are the entry's words.
var DefaultAllowlist = []string{
	"ls", "cat", "head", "tail", "wc", "grep", "rg", "find", "pwd", "echo",
	"sort", "uniq", "cut", "tr", "diff", "basename", "dirname", "stat", "file", "tree", "true", "false",
	"git status", "git log", "git diff", "git show",
	"go build", "go vet", "go test",
}

// deniedFlags lists, per allowlisted program, the arguments that make it write
// or run other programs; such a command needs approval even when allowlisted.
var deniedFlags = map[string][]string{
	"find": {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"},
	"rg":   {"--pre", "--pre-glob"},
	"git":  {"--output", "-c", "--exec-path", "--ext-diff", "--textconv"},
	"go":   {"-o", "-exec", "-toolexec", "-overlay", "-modfile"},
	"tree": {"-o"},
}

// shells whose -c string is parsed and checked like the outer command.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true}

// Decision is the user's answer to an approval request.
type Decision int

const (
	Deny Decision = iota
	AllowOnce
	AllowAlways
)

// ApprovalRequest says what needs approval and why.
type ApprovalRequest struct {
	Command string
	Reasons []string
}

// Approver asks the user. A client that cannot ask answers Deny; an error is
// treated as Deny by the caller.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
}

// Policy decides which commands run without asking. Safe for concurrent use.
type Policy struct {
	mu     sync.Mutex      // guards allow and always
	allow  [][]string      // allowlist entries, split into words
	always map[string]bool // simple commands the user allowed for good, by their words
}

// NewPolicy builds a policy from allowlist entries ("ls", "git status", …).
func NewPolicy(allowlist []string) *Policy {
	p := &Policy{always: map[string]bool{}}
	p.SetAllowlist(allowlist)
	return p
}

// SetAllowlist replaces the allowlist (settings changed); commands the user
// allowed for good stay allowed.
func (p *Policy) SetAllowlist(allowlist []string) {
	var allow [][]string
	for _, e := range allowlist {
		if f := strings.Fields(e); len(f) > 0 {
			allow = append(allow, f)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.allow = allow
}

// Check parses command with a POSIX/Bash parser and checks every simple command
// in it (pipelines, lists, substitutions, sh -c strings) and every redirection.
// It returns why approval is needed, or nil when the command may run as is.
// Unapproved holds the simple commands that AllowAlways would remember.
func (p *Policy) Check(command string) (reasons []string, unapproved []string, err error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, nil, fmt.Errorf("cannot parse command: %v", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := checker{p: p}
	c.node(f, 0)
	return c.reasons, c.unapproved, nil
}

// Remember allows these simple commands without asking from now on.
func (p *Policy) Remember(simple []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range simple {
		p.always[s] = true
	}
}

type checker struct {
	p          *Policy
	reasons    []string
	unapproved []string
}

func (c *checker) flag(simple, reason string) {
	c.reasons = append(c.reasons, reason)
	if simple != "" {
		c.unapproved = append(c.unapproved, simple)
	}
}

const maxShellNesting = 4

func (c *checker) node(n syntax.Node, depth int) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			c.call(n, depth)
		case *syntax.Redirect:
			c.redirect(n)
		case *syntax.FuncDecl:
			c.flag("", "defines a shell function")
		case *syntax.DeclClause:
			c.flag("", fmt.Sprintf("runs the shell builtin %q", n.Variant.Value))
		case *syntax.CoprocClause:
			c.flag("", "starts a coprocess")
		}
		return true
	})
}

func (c *checker) call(call *syntax.CallExpr, depth int) {
	if len(call.Args) == 0 {
		return // a plain assignment
	}
	name, ok := literal(call.Args[0])
	if !ok {
		c.flag("", fmt.Sprintf("the command name %q is computed at run time", printWord(call.Args[0])))
		return
	}
	args := make([]string, 0, len(call.Args))
	allLiteral := true
	for _, w := range call.Args {
		s, ok := literal(w)
		if !ok {
			allLiteral = false
			s = printWord(w)
		}
		args = append(args, s)
	}
	simple := strings.Join(args, " ")
	if c.p.always[simple] {
		return
	}
	if shells[name] {
		c.shell(args, allLiteral, simple, depth)
		return
	}
	if !c.allowlisted(args) {
		c.flag(simple, fmt.Sprintf("%q is not on the allowlist", simple))
		return
	}
	denied := deniedFlags[name]
	if len(denied) == 0 {
		return
	}
	if !allLiteral {
		c.flag(simple, fmt.Sprintf("%q has arguments computed at run time", simple))
		return
	}
	for _, a := range args[1:] {
		for _, d := range denied {
			if a == d || strings.HasPrefix(a, d+"=") || (len(d) == 2 && strings.HasPrefix(a, d) && name == "go") {
				c.flag(simple, fmt.Sprintf("%q uses %s, which writes files or runs other programs", simple, d))
				return
			}
		}
	}
}

// shell checks `bash -c 'script'` by checking the script.
func (c *checker) shell(args []string, allLiteral bool, simple string, depth int) {
	if !allLiteral || len(args) < 3 || args[1] != "-c" || depth >= maxShellNesting {
		c.flag(simple, fmt.Sprintf("%q runs a shell whose script cannot be checked", simple))
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(args[2]), "")
	if err != nil {
		c.flag(simple, fmt.Sprintf("cannot parse the script of %q: %v", simple, err))
		return
	}
	c.node(f, depth+1)
}

func (c *checker) allowlisted(args []string) bool {
	for _, entry := range c.p.allow {
		if len(entry) <= len(args) && equalWords(entry, args[:len(entry)]) {
			return true
		}
	}
	return false
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (c *checker) redirect(r *syntax.Redirect) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
	case syntax.DplOut:
		if target, ok := literal(r.Word); ok && (target == "1" || target == "2" || target == "-") {
			return
		}
	default:
		return // input redirections and here-documents read only
	}
	target, ok := literal(r.Word)
	if ok && target == "/dev/null" {
		return
	}
	c.flag("", fmt.Sprintf("writes to %q through a redirection", printWord(r.Word)))
}

// literal returns a word's value when it has no expansion in it.
func literal(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, inner := range p.Parts {
				lit, ok := inner.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes backslash escapes of an unquoted literal.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func printWord(w *syntax.Word) string {
	var b strings.Builder
	_ = syntax.NewPrinter().Print(&b, w)
	return b.String()
}
