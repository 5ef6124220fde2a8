package tools

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestExecuteCommandAlwaysAllowCoversOnlyTheCommandRead: the user allows `rm -f 'D/*'`
// (a file named *) for good; `rm -f D/*` (every file in D) asks again,
// and denied, deletes nothing.
func TestExecuteCommandAlwaysAllowCoversOnlyTheCommandRead(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"D/a.txt": "a\n", "D/b.txt": "b\n"})
	a := &scriptedApprover{decision: AllowAlways}
	r := commandRegistry(t, root, a, CommandLimits{})
	if res := call(t, r, "execute_command", map[string]any{"command": "rm -f 'D/*'"}); res.IsError {
		t.Fatalf("the allowed command failed: %+v", res)
	}
	if len(a.asked) != 1 || !strings.Contains(a.asked[0].Always, "\n  rm -f 'D/*'") {
		t.Fatalf("the question must show the allowance as it is matched: %+v", a.asked)
	}
	a.decision = Deny
	res := call(t, r, "execute_command", map[string]any{"command": "rm -f D/*"})
	if len(a.asked) != 2 || !strings.Contains(res.Text, "did not allow") {
		t.Fatalf("rm -f D/* ran on the allowance of rm -f 'D/*': asked %d times; %s", len(a.asked), res.Text)
	}
	if ls := call(t, r, "execute_command", map[string]any{"command": "ls D"}); !strings.Contains(ls.Text, "a.txt\nb.txt\n") {
		t.Fatalf("D lost its files: %s", ls.Text)
	}
	for _, f := range []string{"D/a.txt", "D/b.txt"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Fatalf("the host lost %s: %v", f, err)
		}
	}
	call(t, r, "execute_command", map[string]any{"command": "rm -f 'D/*'"})
	if len(a.asked) != 2 {
		t.Fatalf("the command allowed for good asked again: %+v", a.asked[2:])
	}
}

// TestExecuteCommandAlwaysAllowKeepsWordBoundaries: `touch 'D/a b'` is one argument,
// `touch D/a b` two.
func TestExecuteCommandAlwaysAllowKeepsWordBoundaries(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"D/keep.txt": "k\n"})
	a := &scriptedApprover{decision: AllowAlways}
	r := commandRegistry(t, root, a, CommandLimits{})
	call(t, r, "execute_command", map[string]any{"command": "touch 'D/a b'"})
	a.decision = Deny
	call(t, r, "execute_command", map[string]any{"command": "touch D/a b"})
	if len(a.asked) != 2 {
		t.Fatalf("touch D/a b ran on the allowance of touch 'D/a b': %+v", a.asked)
	}
	ls := call(t, r, "execute_command", map[string]any{"command": "ls D"})
	if ls.Text != "a b\nkeep.txt\n[exit code: 0]" {
		t.Fatalf("D holds:\n%s", ls.Text)
	}
}

// TestAllowanceAdmitsNoOtherCommand: for random simple commands (quoted
// and unquoted literals, globs, parameters, substitutions, assignments,
// redirections), each in two spellings and beside its near misses (a glob
// quoted, a word split at its space, an expansion unquoted, the
// redirection dropped), allowing one for good never lets another run
// without asking when the two differ in what the shell runs: their words,
// where the words split, what expands. One with a parameter or a
// substitution is never allowed for good: it asks again.
func TestAllowanceAdmitsNoOtherCommand(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 1))
	type command struct {
		text, model string
		runTime     bool
	}
	var families [][]command
	for range 150 {
		g := randomCommand(rng)
		family := []command{{g.spell(rng), g.model(), g.runTime()}, {g.spell(rng), g.model(), g.runTime()}}
		for _, m := range g.nearMisses() {
			family = append(family, command{m.spell(rng), m.model(), m.runTime()})
		}
		families = append(families, family)
	}
	distinct, respelled := 0, 0
	for i, family := range families {
		for _, allowed := range family {
			p := NewPolicy(nil)
			_, unapproved, err := p.Check(allowed.text)
			if err != nil {
				t.Fatalf("%s: %v", allowed.text, err)
			}
			p.AllowFromNow(unapproved)
			if reasons, _, _ := p.Check(allowed.text); (len(reasons) > 0) != allowed.runTime {
				t.Fatalf("%s (decided at run time: %v) asks once allowed: %v", allowed.text, allowed.runTime, reasons)
			}
			// Its family, and as many commands of other families.
			others := slices.Clone(family)
			for range 2 * len(family) {
				if j := rng.IntN(len(families)); j != i {
					others = append(others, families[j][rng.IntN(len(families[j]))])
				}
			}
			for _, other := range others {
				if other.model == allowed.model {
					if other.text != allowed.text {
						respelled++
					}
					continue
				}
				distinct++
				if reasons, _, _ := p.Check(other.text); len(reasons) == 0 {
					t.Fatalf("allowing %s (%s) lets %s (%s) run", allowed.text, allowed.model, other.text, other.model)
				}
			}
		}
	}
	if distinct < 5000 || respelled < 200 {
		t.Fatalf("the generator is too narrow: %d distinct pairs, %d respelled", distinct, respelled)
	}
}

// A part of a generated word: a literal, an unquoted glob character, a
// parameter or a command substitution (quoted or not, which decides
// whether its value splits).
type genPart struct {
	kind   byte // 'l', 'g', 'p', 's'
	text   string
	quoted bool
}

type genWord []genPart

// genCommand is a simple command: an assignment (when assign is set), a
// name, words and a redirection (when redirect is set).
type genCommand struct {
	assign   genWord
	name     string
	words    []genWord
	redirect string
	target   genWord
}

var (
	genLiterals = []string{"a", "b", "D/", "-f", " ", "*", "?", "$", "'", `"`, `\`, "x y"}
	genNames    = []string{"rm", "touch", "cat"}
	genRedirs   = []string{">", ">>", "<", "2>"}
)

func randomCommand(rng *rand.Rand) genCommand {
	g := genCommand{name: genNames[rng.IntN(len(genNames))]}
	if rng.IntN(4) == 0 {
		g.assign = randomWord(rng)
	}
	for range 1 + rng.IntN(3) {
		g.words = append(g.words, randomWord(rng))
	}
	if rng.IntN(3) == 0 {
		g.redirect, g.target = genRedirs[rng.IntN(len(genRedirs))], randomWord(rng)
	}
	return g
}

func randomWord(rng *rand.Rand) genWord {
	var w genWord
	for range 1 + rng.IntN(3) {
		switch k := rng.IntN(10); {
		case k < 6:
			w = append(w, genPart{kind: 'l', text: genLiterals[rng.IntN(len(genLiterals))]})
		case k < 8:
			w = append(w, genPart{kind: 'g', text: []string{"*", "?"}[rng.IntN(2)]})
		case k < 9:
			w = append(w, genPart{kind: 'p', text: "X", quoted: rng.IntN(2) == 0})
		default:
			w = append(w, genPart{kind: 's', text: "ls", quoted: rng.IntN(2) == 0})
		}
	}
	return w
}

// nearMisses are commands one step from g that the shell runs
// differently: a glob quoted or a quoted * unquoted, a word split at its
// space or two words joined by one, an expansion's quoting flipped, the
// redirection or the assignment dropped.
func (g genCommand) nearMisses() []genCommand {
	var out []genCommand
	for wi, w := range g.words {
		for pi, p := range w {
			m := g.clone()
			switch {
			case p.kind == 'g':
				m.words[wi][pi].kind = 'l'
			case p.kind == 'l' && (p.text == "*" || p.text == "?"):
				m.words[wi][pi].kind = 'g'
			case p.kind == 'p' || p.kind == 's':
				m.words[wi][pi].quoted = !p.quoted
			case p.text == " ":
				m.words = slices.Concat(m.words[:wi], []genWord{w[:pi], w[pi+1:]}, m.words[wi+1:])
			default:
				continue
			}
			if len(m.words[wi]) > 0 && (wi+1 == len(m.words) || len(m.words[wi+1]) > 0) {
				out = append(out, m)
			}
		}
		if wi+1 < len(g.words) {
			m := g.clone()
			joined := slices.Concat(w, genWord{{kind: 'l', text: " "}}, g.words[wi+1])
			m.words = slices.Concat(m.words[:wi], []genWord{joined}, m.words[wi+2:])
			out = append(out, m)
		}
	}
	if g.redirect != "" {
		m := g.clone()
		m.redirect, m.target = "", nil
		out = append(out, m)
	}
	if g.assign != nil {
		m := g.clone()
		m.assign = nil
		out = append(out, m)
	}
	return out
}

func (g genCommand) clone() genCommand {
	m := g
	m.words = nil
	for _, w := range g.words {
		m.words = append(m.words, slices.Clone(w))
	}
	return m
}

// runTime says whether g holds a parameter or a substitution.
func (g genCommand) runTime() bool {
	for _, w := range slices.Concat([]genWord{g.assign, g.target}, g.words) {
		if slices.ContainsFunc(w, func(p genPart) bool { return p.kind == 'p' || p.kind == 's' }) {
			return true
		}
	}
	return false
}

// model is what the shell makes of the command, whatever its spelling.
func (g genCommand) model() string {
	var words []string
	if g.assign != nil {
		words = append(words, "assign X="+g.assign.model())
	}
	words = append(words, "L"+strconv.Quote(g.name))
	for _, w := range g.words {
		words = append(words, w.model())
	}
	if g.redirect != "" {
		words = append(words, "redirect "+g.redirect+g.target.model())
	}
	return strings.Join(words, " ")
}

// model merges adjacent literals, however quoted, and keeps every other part.
func (w genWord) model() string {
	var m strings.Builder
	lit := ""
	for i, p := range w {
		if p.kind == 'l' {
			lit += p.text
			if i+1 == len(w) || w[i+1].kind != 'l' {
				m.WriteString("L" + strconv.Quote(lit) + ",")
				lit = ""
			}
			continue
		}
		fmt.Fprintf(&m, "%c%s%v,", p.kind, p.text, p.quoted)
	}
	return m.String()
}

// spell writes the command with each literal quoted one of three ways.
func (g genCommand) spell(rng *rand.Rand) string {
	var words []string
	if g.assign != nil {
		words = append(words, "X="+g.assign.spell(rng))
	}
	words = append(words, spellLiteral(rng, g.name))
	for _, w := range g.words {
		words = append(words, w.spell(rng))
	}
	if g.redirect != "" {
		words = append(words, g.redirect+g.target.spell(rng))
	}
	return strings.Join(words, " ")
}

func (w genWord) spell(rng *rand.Rand) string {
	var b strings.Builder
	for _, p := range w {
		switch p.kind {
		case 'l':
			b.WriteString(spellLiteral(rng, p.text))
		case 'g':
			b.WriteString(p.text)
		case 'p':
			b.WriteString(quoteIf(p.quoted, "${X}"))
		case 's':
			b.WriteString(quoteIf(p.quoted, "$(ls)"))
		}
	}
	return b.String()
}

func quoteIf(quoted bool, s string) string {
	if quoted {
		return `"` + s + `"`
	}
	return s
}

// spellLiteral writes s so that the shell reads it as the literal s:
// single-quoted, double-quoted or with backslashes.
func spellLiteral(rng *rand.Rand, s string) string {
	switch rng.IntN(3) {
	case 0:
		if !strings.Contains(s, "'") {
			return "'" + s + "'"
		}
		fallthrough
	case 1:
		r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")
		return `"` + r.Replace(s) + `"`
	}
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(" *?$'\"\\", c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// A command whose name is computed is never allowed for good, with a
// redirection or without.
func TestComputedCommandNameIsNeverRemembered(t *testing.T) {
	p := NewPolicy(nil)
	for _, command := range []string{"$CMD x", "$CMD x >out", "{rm,x} 2>err"} {
		reasons, unapproved, err := p.Check(command)
		if err != nil || len(reasons) == 0 || len(unapproved) != 0 {
			t.Errorf("Check(%q) = %q, %q, %v; want reasons and nothing to remember", command, reasons, unapproved, err)
		}
	}
	if note := allowanceNote(nil); !strings.Contains(note, "allowed once only") {
		t.Errorf("the note for nothing to remember: %q", note)
	}
}
