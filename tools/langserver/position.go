package langserver

import (
	"strings"

	"go.lsp.dev/protocol"
)

// encoding is how a server counts a position's character: UTF-8 bytes
// (which we ask for first) or UTF-16 units (every server's default).
type encoding string

const (
	utf8Encoding  encoding = "utf-8"
	utf16Encoding encoding = "utf-16"
)

// lineStart is the byte offset where line n (0-based) of text starts, or
// len(text) past the end.
func lineStart(text string, n int) int {
	off := 0
	for range n {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	return off
}

// lineAt is line n of text without its line break.
func lineAt(text string, n int) string {
	s := text[lineStart(text, n):]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, "\r")
}

// offsetOf is the byte offset of p in text; a character past its line's
// end is the line's end.
func offsetOf(text string, p protocol.Position, enc encoding) int {
	start := lineStart(text, int(p.Line))
	line := lineAt(text, int(p.Line))
	if enc == utf8Encoding {
		return start + min(int(p.Character), len(line))
	}
	units := 0
	for i, r := range line {
		if units >= int(p.Character) {
			return start + i
		}
		units++
		if r >= 0x10000 {
			units++
		}
	}
	return start + len(line)
}

// positionOf is the position of byte offset off in text.
func positionOf(text string, off int, enc encoding) protocol.Position {
	off = min(max(off, 0), len(text))
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	col := text[start:off]
	if enc == utf8Encoding {
		return protocol.Position{Line: uint32(line), Character: uint32(len(col))}
	}
	units := 0
	for _, r := range col {
		units++
		if r >= 0x10000 {
			units++
		}
	}
	return protocol.Position{Line: uint32(line), Character: uint32(units)}
}
