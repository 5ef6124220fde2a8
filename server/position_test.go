package server

import (
	"testing"

	"go.lsp.dev/protocol"
)

func TestPositionConversion(t *testing.T) {
	text := "a😀b\r\nsecond line\nlast"
	cases := []struct {
		enc  encoding
		pos  protocol.Position
		want int
	}{
		{utf16, protocol.Position{Line: 0, Character: 0}, 0},
		{utf16, protocol.Position{Line: 0, Character: 1}, 1},
		{utf16, protocol.Position{Line: 0, Character: 3}, 5},  // after the surrogate pair
		{utf16, protocol.Position{Line: 0, Character: 2}, 1},  // inside the pair: its start
		{utf16, protocol.Position{Line: 0, Character: 4}, 6},  // end of line, before \r\n
		{utf16, protocol.Position{Line: 0, Character: 99}, 6}, // past the end: clamped, CR excluded
		{utf16, protocol.Position{Line: 1, Character: 6}, 14},
		{utf16, protocol.Position{Line: 2, Character: 4}, len(text)},
		{utf16, protocol.Position{Line: 9, Character: 0}, len(text)},
		{utf8Enc, protocol.Position{Line: 0, Character: 5}, 5},
		{utf8Enc, protocol.Position{Line: 0, Character: 3}, 1}, // inside the emoji's bytes: its start
		{utf8Enc, protocol.Position{Line: 0, Character: 50}, 6},
		{utf32, protocol.Position{Line: 0, Character: 2}, 5}, // the emoji is one code point
		{utf32, protocol.Position{Line: 0, Character: 3}, 6},
		{utf32, protocol.Position{Line: 1, Character: 6}, 14},
	}
	for _, c := range cases {
		if got := c.enc.offset(text, c.pos); got != c.want {
			t.Errorf("enc %d offset(%v) = %d, want %d", c.enc, c.pos, got, c.want)
		}
	}
	for _, off := range []int{0, 1, 5, 6, 8, 14, len(text)} {
		for _, enc := range []encoding{utf16, utf8Enc, utf32} {
			if back := enc.offset(text, enc.position(text, off)); back != off {
				t.Errorf("enc %d: offset %d → %v → %d", enc, off, enc.position(text, off), back)
			}
		}
	}
	if p := utf16.position(text, 5); p.Line != 0 || p.Character != 3 {
		t.Errorf("utf16 position after emoji = %v", p)
	}
	if p := utf8Enc.position(text, 5); p.Character != 5 {
		t.Errorf("utf8 position after emoji = %v", p)
	}
	if p := utf32.position(text, 5); p.Character != 2 {
		t.Errorf("utf32 position after emoji = %v", p)
	}
}
