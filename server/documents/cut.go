package documents

import "unicode/utf8"

// Byte caps on text that goes into a prompt: cut where a character starts,
// so what a model is sent is still valid UTF-8.

// FirstBytes is s's first n bytes at most, without a character cut in two.
func FirstBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// LastBytes is s's last n bytes at most, without a character cut in two.
func LastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// WholeRunes is s without the bytes of a character cut in two at its ends.
func WholeRunes(s string) string {
	for s != "" && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	i := len(s) - 1
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	if i >= 0 && !utf8.FullRuneInString(s[i:]) {
		s = s[:i]
	}
	return s
}
