package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// DefaultAllowlist holds the commands that run without asking. An entry
// matches a simple command whose first words are the entry's words. Most
// only read; go build/vet/test run the workspace's code, which is safe only
// inside the full sandbox — below it, SetCodeApproval makes them ask.
var DefaultAllowlist = []string{
	"ls", "cat", "head", "tail", "wc", "grep", "rg", "find", "pwd", "echo",
	"sort", "uniq", "cut", "tr", "diff", "basename", "dirname", "stat", "file", "tree", "true", "false",
	"git status", "git log", "git diff", "git show",
	"go build", "go vet", "go test",
}

// optionRule lists a program's options that write files or run other
// programs, by name without dashes ("o", "toolexec"). getopt programs also
// accept a one-letter option inside a cluster or with its value attached
// (-vo, -ofile) and abbreviated long options (--out for --output); Go's flag
// package and find accept neither.
type optionRule struct {
	getopt bool
	names  []string
}

// writeOrRunOptions make an allowlisted command need approval. The lists err
// on the side of asking: an option that only reads is cheap to approve.
var writeOrRunOptions = map[string]optionRule{
	"go": {names: []string{"o", "c", "exec", "toolexec", "overlay", "modfile", "mod",
		"ldflags", "gcflags", "asmflags", "gccgoflags", "compiler", "vettool", "pkgdir",
		"coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "outputdir"}},
	"find": {names: []string{"exec", "execdir", "ok", "okdir", "delete", "fprint", "fprint0", "fprintf", "fls"}},
	// git-dir: the repository named is obeyed (its config, hooks and
	// drivers), and naming it lifts GIT_DIR and safe.bareRepository; the
	// submodule options start git in a submodule's work tree, which obeys
	// the .git there (the sandbox's diff.ignoreSubmodules=all keeps it out).
	"git": {getopt: true, names: []string{"c", "config-env", "exec-path", "git-dir", "upload-pack", "receive-pack",
		"ext-diff", "textconv", "output", "O", "open-files-in-pager", "show-signature",
		"ignore-submodules", "submodule", "recurse-submodules"}},
	"rg":   {getopt: true, names: []string{"pre", "pre-glob", "z", "search-zip", "hostname-bin"}},
	"sort": {getopt: true, names: []string{"o", "output", "compress-program", "T", "temporary-directory"}},
	"tree": {getopt: true, names: []string{"o", "R"}},
	"file": {getopt: true, names: []string{"C", "compile"}},
}

// usesOption reports whether arg spells the option name: -name, --name,
// -name=v or --name=v, and for getopt programs also --abbrev[=v] and, for a
// one-letter name, any single-dash argument holding the letter (-vo, -ofile).
func usesOption(arg, name string, getopt bool) bool {
	body, long := strings.CutPrefix(arg, "--")
	if !long {
		var short bool
		if body, short = strings.CutPrefix(arg, "-"); !short {
			return false
		}
	}
	key, _, _ := strings.Cut(body, "=")
	switch {
	case key == "":
		return false
	case key == name:
		return true
	case !getopt:
		return false
	case long:
		return strings.HasPrefix(name, key)
	default:
		return len(name) == 1 && strings.Contains(body, name)
	}
}

// writeOrRunOption returns the index of the first argument that uses an
// option of the program's rule, or -1.
func writeOrRunOption(name string, args []string) int {
	rule := writeOrRunOptions[name]
	for i, a := range args {
		for _, o := range rule.names {
			if usesOption(a, o, rule.getopt) {
				return i
			}
		}
	}
	return -1
}

// noOperands are programs that never open their operands, so computed or
// outside arguments cannot make them read anything.
var noOperands = map[string]bool{
	"echo": true, "true": true, "false": true, "pwd": true, "basename": true, "dirname": true,
	"tr": true, // reads only stdin; its operands are character sets
}

// harmlessEnv are variables that a command may be given (X=v cmd) without
// asking: none of them makes a program load or run anything else.
var harmlessEnv = map[string]bool{
	"LANG": true, "TZ": true, "NO_COLOR": true, "TERM": true, "COLUMNS": true, "LINES": true,
	"GOOS": true, "GOARCH": true, "CGO_ENABLED": true,
}

func isHarmlessEnv(name string) bool {
	return harmlessEnv[name] || strings.HasPrefix(name, "LC_")
}

// inheritedEnv are variables that a bare assignment (X=v; cmd) changes for
// later commands too, because the shell got them from its environment and
// re-exports them, or because the shell itself reads them.
var inheritedEnv = map[string]bool{
	"PATH": true, "HOME": true, "IFS": true, "ENV": true, "BASH_ENV": true, "CDPATH": true,
	"SHELLOPTS": true, "BASHOPTS": true, "PS4": true, "TMPDIR": true,
}

func isInheritedEnv(name string) bool {
	if inheritedEnv[name] {
		return true
	}
	for _, prefix := range []string{"LD_", "DYLD_", "GIT_", "GO", "XDG_"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// codeRunners run code from the workspace (build scripts, tests, package
// hooks, the script itself). go does for goCodeSubcommands only.
var codeRunners = map[string]bool{
	"make": true, "cmake": true, "ctest": true, "just": true, "ninja": true, "meson": true, "bazel": true,
	"npm": true, "npx": true, "yarn": true, "pnpm": true, "node": true, "deno": true, "bun": true,
	"python": true, "python3": true, "pytest": true, "tox": true, "pip": true, "pip3": true, "uv": true, "poetry": true,
	"cargo": true, "rustc": true, "ruby": true, "bundle": true, "rake": true, "perl": true, "php": true,
	"gradle": true, "mvn": true, "java": true, "dotnet": true, "swift": true,
}

var goCodeSubcommands = map[string]bool{
	"build": true, "test": true, "vet": true, "run": true, "generate": true, "install": true, "tool": true,
}

// runsCode reports whether the simple command args runs code from the
// workspace; a command name with a slash is a script or binary there.
func runsCode(args []string) bool {
	name := args[0]
	switch {
	case strings.Contains(name, "/"), codeRunners[name], strings.HasPrefix(name, "python"):
		return true
	case name == "go":
		return goCodeSubcommands[goSubcommand(args)]
	}
	return false
}

// goSubcommand skips the one flag go takes before its subcommand (-C dir).
func goSubcommand(args []string) string {
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C" || a == "--C":
			i++
		case !strings.HasPrefix(a, "-"):
			return a
		}
	}
	return ""
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
	// Always says what "Always allow" lets run without asking from then on,
	// escaped for display (allowanceNote); approvers show it as it is. ""
	// says nothing.
	Always string
	// OnceOnly: an answer would not be remembered (what the command does is
	// decided when it runs; a server asks at each start), so the approver
	// offers Deny and Allow once alone.
	OnceOnly bool
}

// Approver asks the user. A client that cannot ask answers Deny; an error is
// treated as Deny by the caller.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
}

// Policy decides which commands run without asking. Safe for concurrent use.
// The zero settings of SetRoot and SetCodeApproval check neither paths nor
// code execution.
type Policy struct {
	mu           sync.Mutex      // guards the fields below
	allow        [][]string      // allowlist entries, split into words
	always       map[string]bool // simple commands the user allowed for good, by their allowance
	root         string          // workspace root that reads must stay in; "" = no path checks
	codeApproval string          // why workspace code needs approval; "" = it does not
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

// SetCodeApproval says whether the sandbox in force is weaker than full. A
// non-empty reason makes allowlisted commands that run code from the
// workspace (go test, make, npm, ./script, …) need approval, the reason
// completing "… runs code from the workspace, and <reason>", for example
// `the sandbox here is "landlock"`. "" turns this off.
func (p *Policy) SetCodeApproval(reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.codeApproval = reason
}

// Check parses command with a POSIX/Bash parser and checks every simple command
// in it (pipelines, lists, substitutions, sh -c strings) and every redirection.
// It returns why approval is needed, or nil when the command may run as is.
// Unapproved holds the allowances of the simple commands that need
// approval: what AllowFromNow would remember (see allowance).
// Paths are checked against SetRoot's root.
func (p *Policy) Check(command string) (reasons []string, unapproved []string, err error) {
	p.mu.Lock()
	root := p.root
	p.mu.Unlock()
	return p.CheckIn(command, root, []string{root})
}

// CheckIn is Check for a command that runs in dir (absolute, links
// resolved) of a workspace with roots: allowlisted commands that would read
// outside every root need approval, a relative path read from dir. The
// policy's own root is not used, so runs in different roots can share the
// policy (and what the user allowed for good). dir "" turns path checks off.
func (p *Policy) CheckIn(command, dir string, roots []string) (reasons []string, unapproved []string, err error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, nil, fmt.Errorf("cannot parse command: %v", err)
	}
	c := checker{p: p}
	if dir != "" {
		c.dir = filepath.Clean(dir)
		for _, r := range roots {
			c.roots = append(c.roots, filepath.Clean(r))
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c.node(f, 0)
	return c.reasons, c.unapproved, nil
}

// AllowFromNow allows these simple commands without asking from now on (the
// user's "Always allow"): allowances as Check's unapproved gives them,
// which admit nothing but the same simple command.
func (p *Policy) AllowFromNow(simple []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range simple {
		p.always[s] = true
	}
}

type checker struct {
	p *Policy
	// dir is where the command runs, roots where it may read without
	// asking; dir "" checks no path.
	dir        string
	roots      []string
	reasons    []string
	unapproved []string
}

// flag records why approval is needed; simple is the allowance that would
// cover it, nil where none can.
func (c *checker) flag(simple *allowance, reason string) {
	c.reasons = append(c.reasons, reason)
	if simple != nil && simple.rememberable() && !slices.Contains(c.unapproved, simple.String()) {
		c.unapproved = append(c.unapproved, simple.String())
	}
}

const maxShellNesting = 4

func (c *checker) node(n syntax.Node, depth int) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			c.stmt(n, depth)
		case *syntax.FuncDecl:
			c.flag(nil, "defines a shell function")
		case *syntax.DeclClause:
			c.flag(nil, "runs the shell builtin "+n.Variant.Value)
		case *syntax.CoprocClause:
			c.flag(nil, "starts a coprocess")
		}
		return true
	})
}

// stmt checks a statement's simple command with its redirections, which
// the user allows together; its substitutions are checked by the walk.
func (c *checker) stmt(s *syntax.Stmt, depth int) {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok {
		for _, r := range s.Redirs {
			c.redirect(nil, r)
		}
		return
	}
	simple := &allowance{call: call, redirs: s.Redirs}
	switch {
	case len(call.Args) > 0 && !isLiteral(call.Args[0]):
		// Nothing of it can be allowed for good: what runs is decided later.
		c.flag(nil, fmt.Sprintf("the command name %s is computed at run time", printWord(call.Args[0])))
		simple = nil
	case len(c.p.always) > 0 && c.p.always[simple.String()] && simple.rememberable():
		return
	default:
		c.call(simple, call, depth)
	}
	for _, r := range s.Redirs {
		c.redirect(simple, r)
	}
}

// call checks one simple command, whose allowance is simple.
func (c *checker) call(simple *allowance, call *syntax.CallExpr, depth int) {
	args := make([]string, 0, len(call.Args))
	allLiteral := true
	for _, w := range call.Args {
		s, ok := literal(w)
		if !ok || hasBraces(w) {
			allLiteral = false
			s = printWord(w)
		}
		args = append(args, s)
	}
	if len(call.Args) == 0 {
		if reason := bareAssignReason(call.Assigns); reason != "" {
			c.flag(simple, simple.String()+" "+reason)
		}
		return
	}
	for _, a := range call.Assigns {
		if !isHarmlessEnv(a.Name.Value) {
			c.flag(simple, fmt.Sprintf("%s sets %s for the command", simple, a.Name.Value))
			return
		}
	}
	if shells[args[0]] {
		c.shell(args, allLiteral, simple, depth)
		return
	}
	if !c.allowlisted(args) {
		c.flag(simple, simple.String()+" is not on the allowlist")
		return
	}
	if reason := c.allowedReason(call.Args, args, allLiteral); reason != "" {
		c.flag(simple, simple.String()+" "+reason)
	}
}

// allowedReason says why an allowlisted command still needs approval, or "".
func (c *checker) allowedReason(words []*syntax.Word, args []string, allLiteral bool) string {
	name := args[0]
	if noOperands[name] {
		return ""
	}
	if !allLiteral {
		return "has arguments computed at run time"
	}
	if _, ok := writeOrRunOptions[name]; ok {
		for _, w := range words[1:] {
			// A pattern that can match a file named "-o…" can become an option.
			if prefix, glob := globPrefix(w); glob && (prefix == "" || prefix[0] == '-') {
				return fmt.Sprintf("has a pattern %s that can expand to an option", printWord(w))
			}
		}
	}
	// Words are shown as written, values compared.
	if i := writeOrRunOption(name, args[1:]); i >= 0 {
		return fmt.Sprintf("uses %s, which writes files or runs other programs", printWord(words[1+i]))
	}
	if i := c.outsideArg(args[1:]); i >= 0 {
		return fmt.Sprintf("reads %s, outside the workspace", printWord(words[1+i]))
	}
	if c.p.codeApproval != "" && runsCode(args) {
		return "runs code from the workspace, and " + c.p.codeApproval
	}
	return ""
}

// bareAssignReason says why a shell assignment without a command needs
// approval, or "". Such an assignment is local to the shell unless the shell
// inherited the variable or reads it itself.
func bareAssignReason(assigns []*syntax.Assign) string {
	for _, a := range assigns {
		if isHarmlessEnv(a.Name.Value) {
			continue
		}
		if isInheritedEnv(a.Name.Value) {
			return fmt.Sprintf("changes %s for the commands after it", a.Name.Value)
		}
		if a.Value != nil && hasSubstitution(a.Value) {
			return fmt.Sprintf("assigns %s a value computed at run time", a.Name.Value)
		}
	}
	return ""
}

// decidedAtRunTime says whether a simple command's words, assignments or
// redirections hold a parameter, a command or process substitution or
// arithmetic: what it does is decided when it runs (`X=/etc; rm $X`,
// `for X in …; do rm $X; done`), so the same text is not the same command
// and is never allowed for good.
func decidedAtRunTime(call *syntax.CallExpr, redirs []*syntax.Redirect) bool {
	found := false
	visit := func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
			found = true
		}
		return !found
	}
	for _, a := range call.Assigns {
		syntax.Walk(a, visit)
	}
	for _, w := range call.Args {
		syntax.Walk(w, visit)
	}
	for _, r := range redirs {
		syntax.Walk(r, visit)
	}
	return found
}

func hasSubstitution(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			found = true
		}
		return !found
	})
	return found
}

// shell checks `bash -c 'script'` by checking the script.
func (c *checker) shell(args []string, allLiteral bool, simple *allowance, depth int) {
	if !allLiteral || len(args) < 3 || args[1] != "-c" || depth >= maxShellNesting {
		c.flag(simple, simple.String()+" runs a shell whose script cannot be checked")
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(args[2]), "")
	if err != nil {
		c.flag(simple, fmt.Sprintf("cannot parse the script of %s: %v", simple, err))
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

// redirect checks a redirection of the statement whose allowance is simple
// (nil for one that cannot be allowed for good).
func (c *checker) redirect(simple *allowance, r *syntax.Redirect) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
	case syntax.DplOut:
		if target, ok := literal(r.Word); ok && (target == "1" || target == "2" || target == "-") {
			return
		}
	case syntax.RdrIn:
		c.inputRedirect(simple, r.Word)
		return
	default:
		return // here-documents and descriptor duplications open no file
	}
	target, ok := literal(r.Word)
	if ok && target == "/dev/null" {
		return
	}
	c.flag(simple, fmt.Sprintf("writes to %s through a redirection", printWord(r.Word)))
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

func isLiteral(w *syntax.Word) bool {
	_, ok := literal(w)
	return ok && !hasBraces(w)
}

// hasBraces reports an unquoted brace expansion ({a,b}, {1..3}): the shell
// turns it into several words, so its text is not what runs.
func hasBraces(w *syntax.Word) bool {
	cp := *w // SplitBraces rewrites the word it is given
	if !syntax.SplitBraces(&cp) {
		return false
	}
	for _, part := range cp.Parts {
		if _, ok := part.(*syntax.BraceExp); ok {
			return true
		}
	}
	return false // "{}" or "{x}" stay literal
}

// globPrefix returns a literal word's text before its first unquoted glob
// character, and whether it has one.
func globPrefix(w *syntax.Word) (prefix string, glob bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			for i := 0; i < len(p.Value); i++ {
				switch ch := p.Value[i]; {
				case ch == '\\' && i+1 < len(p.Value):
					i++
					b.WriteByte(p.Value[i])
				case ch == '*' || ch == '?' || ch == '[':
					return b.String(), true
				default:
					b.WriteByte(ch)
				}
			}
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, inner := range p.Parts {
				if lit, ok := inner.(*syntax.Lit); ok {
					b.WriteString(lit.Value)
				}
			}
		}
	}
	return b.String(), false
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
