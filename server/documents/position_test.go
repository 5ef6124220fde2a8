package documents

import (
	"testing"

	"go.lsp.dev/protocol"
)

func TestPositionConversion(t *testing.T) {
	text := "a😀b\r\nsecond line\nlast"
	cases := []struct {
		enc  Encoding
		pos  protocol.Position
		want int
	}{
		{UTF16, protocol.Position{Line: 0, Character: 0}, 0},
		{UTF16, protocol.Position{Line: 0, Character: 1}, 1},
		{UTF16, protocol.Position{Line: 0, Character: 3}, 5},  // after the surrogate pair
		{UTF16, protocol.Position{Line: 0, Character: 2}, 1},  // inside the pair: its start
		{UTF16, protocol.Position{Line: 0, Character: 4}, 6},  // end of line, before \r\n
		{UTF16, protocol.Position{Line: 0, Character: 99}, 6}, // past the end: clamped, CR excluded
		{UTF16, protocol.Position{Line: 1, Character: 6}, 14},
		{UTF16, protocol.Position{Line: 2, Character: 4}, len(text)},
		{UTF16, protocol.Position{Line: 9, Character: 0}, len(text)},
		{UTF8, protocol.Position{Line: 0, Character: 5}, 5},
		{UTF8, protocol.Position{Line: 0, Character: 3}, 1}, // inside the emoji's bytes: its start
		{UTF8, protocol.Position{Line: 0, Character: 50}, 6},
		{UTF32, protocol.Position{Line: 0, Character: 2}, 5}, // the emoji is one code point
		{UTF32, protocol.Position{Line: 0, Character: 3}, 6},
		{UTF32, protocol.Position{Line: 1, Character: 6}, 14},
	}
	for _, c := range cases {
		if got := c.enc.Offset(text, c.pos); got != c.want {
			t.Errorf("enc %d offset(%v) = %d, want %d", c.enc, c.pos, got, c.want)
		}
	}
	for _, off := range []int{0, 1, 5, 6, 8, 14, len(text)} {
		for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
			if back := enc.Offset(text, enc.Position(text, off)); back != off {
				t.Errorf("enc %d: offset %d → %v → %d", enc, off, enc.Position(text, off), back)
			}
		}
	}
	if p := UTF16.Position(text, 5); p.Line != 0 || p.Character != 3 {
		t.Errorf("UTF16 position after emoji = %v", p)
	}
	if p := UTF8.Position(text, 5); p.Character != 5 {
		t.Errorf("utf8 position after emoji = %v", p)
	}
	if p := UTF32.Position(text, 5); p.Character != 2 {
		t.Errorf("UTF32 position after emoji = %v", p)
	}
}
