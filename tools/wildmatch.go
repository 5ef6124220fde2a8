package tools

import (
	"strings"
	"unicode/utf8"
)

// wildmatchToMatch rewrites a pattern in git's wildmatch syntax into the
// syntax of path.Match, which go-git's gitignore matches each segment with.
// The two differ in brackets and stars:
//   - [!a] is [^a]; a ] first in a class, and a - first or last, are literal;
//   - POSIX classes ([:digit:] …) are spelt out as their ASCII ranges;
//   - a run of stars inside a segment is one star ("a**" is "a*"), and a
//     segment of stars only is "**";
//   - an escaped star becomes [*], so no "**" appears where there was none;
//   - "?" and classes match one ASCII character only: git compares bytes,
//     so they never match a character of two or more bytes in UTF-8.
//
// A / in a class is dropped: git's classes never match a slash in a path.
// ok is false for a pattern git can never match: an unclosed bracket, an
// unknown class name or a trailing backslash.
func wildmatchToMatch(p string) (string, bool) {
	if !strings.ContainsAny(p, `\[?`) && !strings.Contains(p, "**") {
		return p, true // nothing to rewrite
	}
	b := make([]byte, 0, len(p)+32)
	for i := 0; i < len(p); {
		switch c := p[i]; c {
		case '\\':
			if i+1 == len(p) {
				return "", false
			}
			r, n := utf8.DecodeRuneInString(p[i+1:])
			b = append(b, escaped(r)...)
			i += 1 + n
		case '*':
			j := i
			for j < len(p) && p[j] == '*' {
				j++
			}
			if j-i > 1 && (i == 0 || p[i-1] == '/') && (j == len(p) || p[j] == '/') {
				b = append(b, "**"...)
			} else {
				b = append(b, '*')
			}
			i = j
		case '[':
			var n int
			var ok bool
			b, n, ok = bracket(b, p[i+1:])
			if !ok {
				return "", false
			}
			i += 1 + n
		case '?':
			b = append(b, anyASCII...)
			i++
		default:
			b = append(b, c)
			i++
		}
	}
	return string(b), true
}

// escaped is an escaped character outside a class.
func escaped(r rune) string {
	switch r {
	case '*':
		return "[*]"
	case '/':
		return "/"
	}
	return `\` + string(r)
}

// anyASCII is git's "?" for a name in UTF-8: any one-byte character.
const anyASCII = "[^\u0080-\U0010FFFF]"

// posixClasses are git's character classes (ASCII, as git's ctype is), as
// the inside of a path.Match class; punct's "!-/" stops at ".", no segment
// holding a slash.
var posixClasses = map[string]string{
	"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "blank": " \t", "cntrl": "\x00-\x1f\x7f",
	"digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
	"punct": "!-.:-@\\[-`{-~", "space": "\t-\r ", "upper": "A-Z", "xdigit": "0-9A-Fa-f",
}

// bracket appends to b the class whose text follows a "[" in p, rewritten
// in path.Match syntax, and says how many bytes of p it used. It follows
// wildmatch.c:
// the first character (after ! or ^) is literal even if it is "]", a "-" is a
// range between the previous character and the next unless that is "]", and
// "[:" without ":]" before the next "]" is a literal "[".
func bracket(b []byte, p string) ([]byte, int, bool) {
	i, negate := 0, false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate, i = true, i+1
	}
	b = append(b, '[')
	if negate {
		b = append(b, '^')
	}
	items := len(b)
	prev := rune(-1) // the character a "-" makes a range from; -1 for none
	for first := true; ; first = false {
		if i >= len(p) {
			return b, 0, false
		}
		switch {
		case p[i] == ']' && !first:
			if negate {
				return append(b, "\u0080-\U0010FFFF]"...), i + 1, true
			}
			// Empty when it held only slashes or multi-byte characters:
			// it matches nothing then.
			return append(b, ']'), i + 1, len(b) > items
		case p[i] == '-' && prev >= 0 && i+1 < len(p) && p[i+1] != ']':
			hi, n, ok := classChar(p[i+1:])
			if !ok {
				return b, 0, false
			}
			b = appendClassRange(b, prev, hi)
			i, prev = i+1+n, -1
			continue
		case strings.HasPrefix(p[i:], "[:"):
			end := strings.IndexByte(p[i+2:], ']')
			if end < 0 {
				return b, 0, false
			}
			if end > 0 && p[i+2+end-1] == ':' {
				ranges, known := posixClasses[p[i+2:i+2+end-1]]
				if !known {
					return b, 0, false
				}
				b = append(b, ranges...)
				i, prev = i+2+end+1, -1
				continue
			}
		}
		c, n, ok := classChar(p[i:])
		if !ok {
			return b, 0, false
		}
		if c != '/' && c < utf8.RuneSelf {
			b = append(b, '\\', byte(c))
		}
		i, prev = i+n, c
	}
}

// classChar reads one possibly escaped character of a class.
func classChar(p string) (rune, int, bool) {
	n := 0
	if p[0] == '\\' {
		if len(p) == 1 {
			return 0, 0, false
		}
		n = 1
	}
	r, size := utf8.DecodeRuneInString(p[n:])
	return r, n + size, true
}

// appendClassRange appends the ASCII part of lo-hi, escaped, its ends moved
// off "/" (which no segment holds, and which go-git would take for a
// separator).
func appendClassRange(b []byte, lo, hi rune) []byte {
	if lo == '/' {
		lo = '0'
	}
	if hi == '/' {
		hi = '.'
	}
	hi = min(hi, utf8.RuneSelf-1)
	if lo > hi {
		return b
	}
	return append(b, '\\', byte(lo), '-', '\\', byte(hi))
}
