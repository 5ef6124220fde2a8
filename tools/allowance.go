package tools

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// allowance is what "Always allow" remembers of a simple command: the
// command as the parser read it — its assignments, its words with their
// quoting, globs and expansions, and its redirections — printed on one
// line. The printer writes what it parsed, so two commands share an
// allowance only when they parse alike: `rm -f 'D/*'` (a file named *)
// and `rm -f D/*` (every file in D) are two, as are `touch 'a b'` and
// `touch a b`. Different spellings of one argv (`ls` and `'ls'`) are two
// as well: an approval too many is cheap, one too few is not. The user is
// shown this text, so what they allow is what is matched.
//
// It is printed when first needed: most commands run without asking, and
// printing would double the cost of checking them.
type allowance struct {
	call   *syntax.CallExpr
	redirs []*syntax.Redirect
	text   string // "" until printed
	// runTime: what it does is decided when it runs (decidedAtRunTime), so
	// it is shown but never remembered; looked at once it is needed.
	runTime, looked bool
}

// rememberable says whether "Always allow" may remember a.
func (a *allowance) rememberable() bool {
	if !a.looked {
		a.runTime, a.looked = decidedAtRunTime(a.call, a.redirs), true
	}
	return !a.runTime
}

func (a *allowance) String() string {
	if a.text == "" {
		var b strings.Builder
		stmt := &syntax.Stmt{Cmd: &syntax.CallExpr{Assigns: a.call.Assigns, Args: a.call.Args}, Redirs: a.redirs}
		// Errors come from the writer only, and a Builder returns none.
		_ = syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, stmt)
		a.text = b.String()
	}
	return a.text
}

// allowanceNote says what "Always allow" would let run without asking
// from then on: exactly the allowances given (Check's unapproved), one a
// line, escaped for display. With none it says why the command can be
// allowed once only (the approver then offers no "Always allow").
func allowanceNote(allowances []string) string {
	if len(allowances) == 0 {
		return "It can be allowed once only: what it does is decided when it runs, so the same text may do something else next time."
	}
	var b strings.Builder
	b.WriteString("Always allowing it lets exactly this run without asking in this workspace until agent-lsp exits (any other spelling asks again):")
	for _, a := range allowances {
		b.WriteString("\n  ")
		b.WriteString(Printable(a))
	}
	return b.String()
}
