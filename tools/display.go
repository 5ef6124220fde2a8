package tools

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What the user reads is what happens: text from a model, a command or a
// file reaches a terminal (ask's output, the trace) or an editor's message
// only through these, so no escape sequence it carries can write the
// clipboard (OSC 52), plant a link (OSC 8), retitle the window, move the
// cursor to erase lines or hide text, and no bidi control can reorder what
// is read.

// Printable returns s as it should be shown to someone deciding whether to
// allow it: every character that a terminal or an editor would not show as
// itself is escaped Go-style (\n, \r, \t, \x1b, \u202e, \xff for a byte that
// is not UTF-8). That covers newlines and carriage returns that would push
// part of a command out of sight, ESC sequences that rewrite the screen,
// bidi overrides and isolates that reorder what is read, zero-width and other
// format characters, C0/C1 controls and non-ASCII spaces. Backslashes are
// left as they are, so an ordinary command reads as typed; nothing of s is
// dropped. The result has no line breaks.
func Printable(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			b.WriteString(escapeRune(r))
		}
		i += size
	}
	return b.String()
}

func escapeRune(r rune) string {
	switch {
	case r == '\n':
		return `\n`
	case r == '\r':
		return `\r`
	case r == '\t':
		return `\t`
	case r < 0x80:
		return fmt.Sprintf(`\x%02x`, r)
	case r <= 0xffff:
		return fmt.Sprintf(`\u%04x`, r)
	}
	return fmt.Sprintf(`\U%08x`, r)
}

// Displayable returns s as it may be shown over several lines: like
// Printable, but line breaks (\n, and \r\n kept as it is) and tabs stay,
// and ordinary Unicode (accents, CJK, emoji and their joiners) passes as it
// is. Escaped, visibly and losing nothing: every other C0 control (ESC
// included, and a lone \r, which would overwrite the line), DEL, the C1
// controls, the bidi embeddings, overrides, isolates and marks, line and
// paragraph separators, and bytes that are not UTF-8.
func Displayable(s string) string {
	if displaySafe(s) {
		return s // the common case: no copy
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"), r == '\n', r == '\t':
			b.WriteRune(r)
		case hidden(r):
			b.WriteString(escapeRune(r))
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// DisplayableChanged says whether Displayable(s) differs from s.
func DisplayableChanged(s string) bool { return !displaySafe(s) }

// EscapedDiffNote is the first line of a diff that DisplayableDiff escaped.
const EscapedDiffNote = "# ⚠ this diff holds control or bidi characters, shown escaped (\\x1b, \\u202e …); applying it writes them as they are"

// DisplayableDiff returns a unified diff as it may be shown: Displayable,
// and, when that escaped anything, with EscapedDiffNote as its first line,
// so the user knows that a file really holds such characters (the escapes
// show where). A diff with none is returned as it is.
func DisplayableDiff(diff string) string {
	if displaySafe(diff) {
		return diff
	}
	return EscapedDiffNote + "\n" + Displayable(diff)
}

func displaySafe(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return false
		case r == '\r' && !strings.HasPrefix(s[i+1:], "\n"):
			return false
		case r != '\n' && r != '\t' && r != '\r' && hidden(r):
			return false
		}
		i += size
	}
	return true
}

// hidden are the runes a terminal or a message would not show as
// themselves: controls, and the ones that reorder or break lines unseen.
func hidden(r rune) bool {
	switch {
	case unicode.IsControl(r): // C0, DEL, C1
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true // bidi embeddings, overrides, isolates and marks
	case r == 0x2028 || r == 0x2029:
		return true // line and paragraph separators
	}
	return false
}
