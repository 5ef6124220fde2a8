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
	var b strings.Builder
	for i := 0; i < len(p); {
		switch c := p[i]; c {
		case '\\':
			if i+1 == len(p) {
				return "", false
			}
			r, n := utf8.DecodeRuneInString(p[i+1:])
			b.WriteString(escaped(r))
			i += 1 + n
		case '*':
			j := i
			for j < len(p) && p[j] == '*' {
				j++
			}
			if j-i > 1 && (i == 0 || p[i-1] == '/') && (j == len(p) || p[j] == '/') {
				b.WriteString("**")
			} else {
				b.WriteString("*")
			}
			i = j
		case '[':
			class, n, ok := bracket(p[i+1:])
			if !ok {
				return "", false
			}
			b.WriteString(class)
			i += 1 + n
		case '?':
			b.WriteString(anyASCII)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), true
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

// bracket rewrites the class whose text follows a "[", returning it in
// path.Match syntax and how many bytes of p it used. It follows wildmatch.c:
// the first character (after ! or ^) is literal even if it is "]", a "-" is a
// range between the previous character and the next unless that is "]", and
// "[:" without ":]" before the next "]" is a literal "[".
func bracket(p string) (string, int, bool) {
	var items strings.Builder
	i, negate := 0, false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate, i = true, i+1
	}
	prev := rune(-1) // the character a "-" makes a range from; -1 for none
	for first := true; ; first = false {
		if i >= len(p) {
			return "", 0, false
		}
		switch {
		case p[i] == ']' && !first:
			if negate {
				return "[^" + items.String() + "\u0080-\U0010FFFF]", i + 1, true
			}
			// Empty when it held only slashes or multi-byte characters:
			// it matches nothing then.
			return "[" + items.String() + "]", i + 1, items.Len() > 0
		case p[i] == '-' && prev >= 0 && i+1 < len(p) && p[i+1] != ']':
			hi, n, ok := classChar(p[i+1:])
			if !ok {
				return "", 0, false
			}
			items.WriteString(classRange(prev, hi))
			i, prev = i+1+n, -1
			continue
		case strings.HasPrefix(p[i:], "[:"):
			end := strings.IndexByte(p[i+2:], ']')
			if end < 0 {
				return "", 0, false
			}
			if end > 0 && p[i+2+end-1] == ':' {
				ranges, known := posixClasses[p[i+2:i+2+end-1]]
				if !known {
					return "", 0, false
				}
				items.WriteString(ranges)
				i, prev = i+2+end+1, -1
				continue
			}
		}
		c, n, ok := classChar(p[i:])
		if !ok {
			return "", 0, false
		}
		if c != '/' && c < utf8.RuneSelf {
			items.WriteString(`\` + string(c))
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

// classRange is the ASCII part of lo-hi, escaped, its ends moved off "/"
// (which no segment holds, and which go-git would take for a separator).
func classRange(lo, hi rune) string {
	if lo == '/' {
		lo = '0'
	}
	if hi == '/' {
		hi = '.'
	}
	hi = min(hi, utf8.RuneSelf-1)
	if lo > hi {
		return ""
	}
	return `\` + string(lo) + `-\` + string(hi)
}
