package documents

import (
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// Position conversion lives here and nowhere else. LSP positions are (line,
// character) where character counts UTF-16 code units by default, bytes when
// UTF-8 was negotiated, code points when UTF-32 was (Emacs counts columns
// so). Text is Go strings (UTF-8 bytes).

// Encoding is the negotiated position encoding.
type Encoding int

const (
	UTF16 Encoding = iota
	UTF8
	UTF32
)

func (e Encoding) Kind() protocol.PositionEncodingKind {
	switch e {
	case UTF8:
		return protocol.PositionEncodingKindUTF8
	case UTF32:
		return protocol.PositionEncodingKindUTF32
	}
	return protocol.PositionEncodingKindUTF16
}

// units is how many of the encoding's units code point r takes.
func (e Encoding) units(r rune) uint32 {
	if e == UTF16 && r >= 0x10000 {
		return 2
	}
	return 1
}

// LineBounds returns the byte offsets of the start of line and of its end
// (before "\n" or "\r\n"). A line past the last returns the end of the text.
func LineBounds(text string, line uint32) (start, end int) {
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
func (e Encoding) Offset(text string, p protocol.Position) int {
	start, end := LineBounds(text, p.Line)
	return start + e.columnToByte(text[start:end], p.Character)
}

func (e Encoding) columnToByte(line string, col uint32) int {
	if e == UTF8 {
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
func (e Encoding) Position(text string, offset int) protocol.Position {
	offset = min(max(offset, 0), len(text))
	line := uint32(strings.Count(text[:offset], "\n"))
	start := strings.LastIndexByte(text[:offset], '\n') + 1
	return protocol.Position{Line: line, Character: e.Width(text[start:offset])}
}

// Width is the length of s in the encoding's units.
func (e Encoding) Width(s string) uint32 {
	if e == UTF8 {
		return uint32(len(s))
	}
	n := uint32(0)
	for _, r := range s {
		n += e.units(r)
	}
	return n
}

// spanRange converts byte offsets [start, end) to an LSP range.
func (e Encoding) SpanRange(text string, start, end int) protocol.Range {
	return protocol.Range{Start: e.Position(text, start), End: e.Position(text, end)}
}
