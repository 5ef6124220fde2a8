package server

import (
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// Position conversion lives here and nowhere else. LSP positions are (line,
// character) where character counts UTF-16 code units by default, bytes when
// UTF-8 was negotiated, code points when UTF-32 was (Emacs counts columns
// so). Text is Go strings (UTF-8 bytes).

// encoding is the negotiated position encoding.
type encoding int

const (
	utf16 encoding = iota
	utf8Enc
	utf32
)

func (e encoding) kind() protocol.PositionEncodingKind {
	switch e {
	case utf8Enc:
		return protocol.PositionEncodingKindUTF8
	case utf32:
		return protocol.PositionEncodingKindUTF32
	}
	return protocol.PositionEncodingKindUTF16
}

// units is how many of the encoding's units code point r takes.
func (e encoding) units(r rune) uint32 {
	if e == utf16 && r >= 0x10000 {
		return 2
	}
	return 1
}

// lineBounds returns the byte offsets of the start of line and of its end
// (before "\n" or "\r\n"). A line past the last returns the end of the text.
func lineBounds(text string, line uint32) (start, end int) {
	start = 0
	for i := uint32(0); i < line; i++ {
		nl := strings.IndexByte(text[start:], '\n')
		if nl < 0 {
			return len(text), len(text)
		}
		start += nl + 1
	}
	end = len(text)
	if nl := strings.IndexByte(text[start:], '\n'); nl >= 0 {
		end = start + nl
	}
	if end > start && text[end-1] == '\r' {
		end--
	}
	return start, end
}

// offset converts a position to a byte offset in text. A character past the
// end of its line, as clients send for "end of line", clamps to the line's end;
// a line past the end clamps to the end of the text. A position inside a
// surrogate pair or a multi-byte character moves to the character's start.
func (e encoding) offset(text string, p protocol.Position) int {
	start, end := lineBounds(text, p.Line)
	return start + e.columnToByte(text[start:end], p.Character)
}

func (e encoding) columnToByte(line string, col uint32) int {
	if e == utf8Enc {
		n := min(int(col), len(line))
		for n > 0 && n < len(line) && !utf8.RuneStart(line[n]) {
			n--
		}
		return n
	}
	units := uint32(0)
	for i, r := range line {
		w := e.units(r)
		if units+w > col {
			return i
		}
		units += w
	}
	return len(line)
}

// position converts a byte offset in text to a position.
func (e encoding) position(text string, offset int) protocol.Position {
	offset = min(max(offset, 0), len(text))
	line := uint32(strings.Count(text[:offset], "\n"))
	start := strings.LastIndexByte(text[:offset], '\n') + 1
	return protocol.Position{Line: line, Character: e.width(text[start:offset])}
}

// width is the length of s in the encoding's units.
func (e encoding) width(s string) uint32 {
	if e == utf8Enc {
		return uint32(len(s))
	}
	n := uint32(0)
	for _, r := range s {
		n += e.units(r)
	}
	return n
}

// spanRange converts byte offsets [start, end) to an LSP range.
func (e encoding) spanRange(text string, start, end int) protocol.Range {
	return protocol.Range{Start: e.position(text, start), End: e.position(text, end)}
}
