package toolstest

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// HostileText carries what a terminal or a message would obey instead of
// show: an OSC 52 clipboard write, an OSC 8 link, a title change, a line
// erased and the cursor moved up, concealed text, a C1 CSI (U+009B) and a
// bidi override (U+202E).
const HostileText = "clip\x1b]52;c;cGF5bG9hZA==\x07 \x1b]8;;http://evil.example\x07link\x1b]8;;\x07 \x1b]0;title\x07 \x1b[2K\x1b[1A \x1b[8mhidden\x1b[0m \u009b2J \u202eevil"

// HostileShown is how HostileText reads once escaped (tools.Displayable).
const HostileShown = `clip\x1b]52;c;cGF5bG9hZA==\x07 \x1b]8;;http://evil.example\x07link\x1b]8;;\x07 \x1b]0;title\x07 \x1b[2K\x1b[1A \x1b[8mhidden\x1b[0m \u009b2J \u202eevil`

// HostilePrintf is a shell command printing HostileText's kinds of bytes
// (and a raw C1 CSI byte, which is not UTF-8) followed by " done".
const HostilePrintf = `printf 'out: \033]52;c;cGF5bG9hZA==\007 \033]8;;http://evil.example\007x \033]0;title\007 \033[2K\033[1A \033[8mhidden \302\2332J \342\200\256evil \233raw done\n'`

// HostilePrintfShown is how HostilePrintf's output reads once escaped, up
// to the raw byte (which execute_command may already have replaced).
const HostilePrintfShown = `out: \x1b]52;c;cGF5bG9hZA==\x07 \x1b]8;;http://evil.example\x07x \x1b]0;title\x07 \x1b[2K\x1b[1A \x1b[8mhidden \u009b2J \u202eevil `

// Obeyable lists what of s a terminal or an editor would act on rather than
// show: ESC, BEL, a C1 control (as a character or a raw byte 0x80–0x9f,
// which covers the UTF-8 form's second byte), DEL, another C0 control but
// \n and \t (and \r of \r\n), a bidi control, and invalid UTF-8.
func Obeyable(s string) []string {
	var found []string
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			found = append(found, fmt.Sprintf("byte %#x at %d", s[i], i))
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"), r == '\n', r == '\t':
		case r < 0x20, r >= 0x7f && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			found = append(found, fmt.Sprintf("%U at %d", r, i))
		}
		i += size
	}
	return found
}
