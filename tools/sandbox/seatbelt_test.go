package sandbox

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// The Seatbelt profile is tested as text on every system: parsed as the
// s-expressions it is, each rule checked for what it grants. Running it is
// macOS's (run_darwin.go), which nothing here can do.

// sexp is one parsed node: an atom (a name or a string) or a list.
type sexp struct {
	atom   string
	quoted bool // atom was a "string" (or a #"regex")
	list   []sexp
}

func (s sexp) String() string {
	if s.list == nil {
		if s.quoted {
			return fmt.Sprintf("%q", s.atom)
		}
		return s.atom
	}
	var parts []string
	for _, e := range s.list {
		parts = append(parts, e.String())
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// parseSBPL parses a profile into its top-level forms, skipping ; comments,
// and fails on unbalanced parentheses or an unterminated string.
func parseSBPL(t *testing.T, text string) []sexp {
	t.Helper()
	var stack [][]sexp
	var top []sexp
	push := func(n sexp) {
		if len(stack) == 0 {
			top = append(top, n)
			return
		}
		stack[len(stack)-1] = append(stack[len(stack)-1], n)
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == ';':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == ' ' || c == '\n' || c == '\t':
			i++
		case c == '(':
			stack = append(stack, []sexp{})
			i++
		case c == ')':
			if len(stack) == 0 {
				t.Fatalf("unbalanced ) at %d", i)
			}
			l := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if l == nil {
				l = []sexp{}
			}
			push(sexp{list: l})
			i++
		case c == '"' || (c == '#' && i+1 < len(text) && text[i+1] == '"'):
			if c == '#' {
				i++
			}
			var b strings.Builder
			i++
			for ; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' && i+1 < len(text) {
					i++
				}
				b.WriteByte(text[i])
			}
			if i >= len(text) {
				t.Fatal("unterminated string")
			}
			i++
			push(sexp{atom: b.String(), quoted: true})
		default:
			j := i
			for j < len(text) && !strings.ContainsRune(" \n\t()\";", rune(text[j])) {
				j++
			}
			push(sexp{atom: text[i:j]})
			i = j
		}
	}
	if len(stack) != 0 {
		t.Fatal("unbalanced (")
	}
	return top
}

// grant is one allow rule: its operations and its filters.
type grant struct {
	ops     []string
	filters []sexp
}

func grants(t *testing.T, profile string) []grant {
	t.Helper()
	forms := parseSBPL(t, profile)
	if len(forms) < 2 || forms[0].String() != "(version 1)" || forms[1].String() != "(deny default)" {
		t.Fatalf("the profile must start with (version 1) (deny default):\n%s", profile)
	}
	var out []grant
	for _, f := range forms[2:] {
		if len(f.list) < 2 || f.list[0].atom != "allow" {
			t.Fatalf("a form that is not an allow rule: %s", f)
		}
		var g grant
		for _, e := range f.list[1:] {
			if e.list == nil {
				g.ops = append(g.ops, e.atom)
			} else {
				g.filters = append(g.filters, e)
			}
		}
		out = append(out, g)
	}
	return out
}

func (g grant) grants(prefix string) bool {
	return slices.ContainsFunc(g.ops, func(op string) bool { return strings.HasPrefix(op, prefix) })
}

var testPolicy = seatbeltPolicy{
	Read:  []string{"/usr/local/go", "/Users/me/go/pkg/mod", "/Users/me/src/app/.git"},
	Write: []string{"/private/var/folders/xy/T/agent-lsp-sandbox-1.2-3/copy", "/private/var/folders/xy/T/agent-lsp-scratch-1.2-4/home", "/private/var/folders/xy/T/agent-lsp-scratch-1.2-4/tmp", "/private/var/folders/xy/T/agent-lsp-sandbox-1.2-3/cache"},
}

// TestSeatbeltWritesOnlyItsOwnDirs: every rule that grants a write names
// the view, its private dirs, or a device, never anything else.
func TestSeatbeltWritesOnlyItsOwnDirs(t *testing.T) {
	profile, err := seatbeltProfile(testPolicy)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range grants(t, profile) {
		if !g.grants("file-write") {
			continue
		}
		for _, f := range g.filters {
			switch {
			case f.list[0].atom == "subpath" && slices.Contains(testPolicy.Write, f.list[1].atom):
			case f.list[0].atom == "subpath" && f.list[1].atom == "/dev/fd":
			case f.list[0].atom == "literal" && strings.HasPrefix(f.list[1].atom, "/dev/"):
			case f.list[0].atom == "require-all" && strings.Contains(f.String(), `(extension "com.apple.sandbox.pty")`):
			default:
				t.Errorf("a write is granted beyond the command's own dirs: %s", f)
			}
		}
	}
}

// TestSeatbeltReadsAnAllowlist: no rule reads without a filter, the
// user's home is read only where listed (the toolchain, the module cache,
// the repository), /System is never read as a whole (its Volumes/Data holds
// every user's files), and /etc is its allowlist.
func TestSeatbeltReadsAnAllowlist(t *testing.T) {
	profile, err := seatbeltProfile(testPolicy)
	if err != nil {
		t.Fatal(err)
	}
	var readable []string
	for _, g := range grants(t, profile) {
		if len(g.filters) == 0 && !slices.Contains([]string{"process-fork", "pseudo-tty", "ipc-posix-sem"}, g.ops[0]) {
			t.Errorf("a rule without a filter allows everything: %v", g.ops)
		}
		if !g.grants("file-read") || g.ops[0] == "file-read-metadata" {
			continue
		}
		for _, f := range g.filters {
			if f.list[0].atom == "subpath" || f.list[0].atom == "literal" {
				readable = append(readable, f.list[1].atom)
			}
		}
	}
	for _, want := range []string{"/usr", "/bin", "/System/Library", "/Library/Developer", "/opt", "/usr/local/go", "/Users/me/go/pkg/mod", "/Users/me/src/app/.git", "/private/etc/passwd", "/private/etc/ssl/certs", "/private/etc/ssl/cert.pem", testPolicy.Write[0]} {
		if !slices.Contains(readable, want) {
			t.Errorf("%s is not readable", want)
		}
	}
	for _, p := range readable {
		if p == "/System" || p == "/Users" || p == "/Users/me" || p == "/private/etc" || p == "/private/var" || p == "/Library" || strings.HasPrefix(p, "/System/Volumes/Data") {
			t.Errorf("%s is readable as a whole", p)
		}
		if strings.HasPrefix(p, "/private/etc/") && !slices.ContainsFunc(slices.Concat(etcAllowed, macEtcAllowed), func(n string) bool { return p == "/private/etc/"+n }) {
			t.Errorf("%s is readable but not in etcAllowed", p)
		}
	}
	for _, secret := range []string{"master.passwd", "shadow", "sudoers", "ssh", "ssl/private"} {
		if strings.Contains(profile, `"/private/etc/`+secret+`"`) {
			t.Errorf("/private/etc/%s is readable", secret)
		}
	}
	if !strings.Contains(profile, `(regex "^/private/etc/java-[^/]*(/.*)?$")`) {
		t.Error("etcAllowed's globs are not regular expressions anchored at /private/etc")
	}
	if strings.Contains(profile, "kern.procargs") || strings.Contains(profile, `"kern.proc."`) {
		t.Error("other processes' arguments and environments are readable")
	}
}

// TestSeatbeltNetwork: without the user's opt-in no IP socket is allowed,
// loopback included, and unix sockets only in the command's own dirs; with
// it, IP and name resolution are.
func TestSeatbeltNetwork(t *testing.T) {
	off, err := seatbeltProfile(testPolicy)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range grants(t, off) {
		if !g.grants("network") && !g.grants("system-socket") {
			continue
		}
		for _, f := range g.filters {
			s := f.String()
			switch {
			case s == "(socket-domain AF_UNIX)":
			case (strings.HasPrefix(s, "(local unix-socket (subpath ") || strings.HasPrefix(s, "(remote unix-socket (subpath ")) &&
				slices.ContainsFunc(testPolicy.Write, func(d string) bool { return strings.Contains(s, fmt.Sprintf("%q", d)) }):
			default:
				t.Errorf("without network: %v %s", g.ops, s)
			}
		}
	}
	if strings.Contains(off, "trustd") || strings.Contains(off, "DNSConfiguration") {
		t.Error("without network, network services are reachable")
	}
	p := testPolicy
	p.Network = true
	on, err := seatbeltProfile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`(allow network-outbound (remote ip "*:*"))`, "(socket-domain AF_INET)", `"com.apple.SystemConfiguration.DNSConfiguration"`, `"/private/var/run/mDNSResponder"`} {
		if !strings.Contains(on, want) {
			t.Errorf("with network, %s is missing", want)
		}
	}
	if strings.Contains(on, `(remote unix-socket (subpath "/"))`) {
		t.Error("with network, every unix socket is reachable")
	}
}

// TestSeatbeltRefusesBadPaths: a path the profile could misread is an error.
func TestSeatbeltRefusesBadPaths(t *testing.T) {
	for _, bad := range []string{"relative/dir", "/a/../b", "/a/", "/a\n(allow default)", ""} {
		if _, err := seatbeltProfile(seatbeltPolicy{Write: []string{bad}}); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
	profile, err := seatbeltProfile(seatbeltPolicy{Write: []string{`/tmp/we"ird\dir`}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(profile, `(subpath "/tmp/we\"ird\\dir")`) {
		t.Errorf("quotes and backslashes are not escaped:\n%s", profile)
	}
	for _, g := range grants(t, profile) {
		for _, f := range g.filters {
			if f.list[0].atom == "subpath" && g.grants("file-write") && !strings.HasPrefix(f.list[1].atom, "/dev/") && f.list[1].atom != `/tmp/we"ird\dir` {
				t.Errorf("the path was split: %s", f)
			}
		}
	}
}

// TestSeatbeltLookupAncestors: the directories above each allowed path can
// be looked up (stat, not listed), and the top-level links read.
func TestSeatbeltLookupAncestors(t *testing.T) {
	profile, err := seatbeltProfile(testPolicy)
	if err != nil {
		t.Fatal(err)
	}
	var meta []string
	for _, g := range grants(t, profile) {
		if len(g.ops) == 1 && g.ops[0] == "file-read-metadata" {
			for _, f := range g.filters {
				if f.list[0].atom != "literal" {
					t.Errorf("metadata granted beyond single paths: %s", f)
				}
				meta = append(meta, f.list[1].atom)
			}
		}
	}
	for _, want := range []string{"/", "/Users", "/Users/me", "/private/var/folders/xy/T", "/etc", "/tmp", "/var", "/private/etc"} {
		if !slices.Contains(meta, want) {
			t.Errorf("%s cannot be looked up", want)
		}
	}
}

func TestRlimitScript(t *testing.T) {
	got := ulimitScript(macRlimits(Limits{FileSize: 1 << 30}))
	if want := `ulimit -f 1048576 && ulimit -c 0 && exec "$0" -c "$1"`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	got = ulimitScript(macRlimits(Limits{FileSize: 1000, CPU: 1500 * time.Millisecond}))
	if want := `ulimit -f 1 && ulimit -c 0 && ulimit -t 2 && exec "$0" -c "$1"`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
