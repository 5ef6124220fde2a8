package tools

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

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
