package tools

import "testing"

func TestDisplayableEscapesWhatATerminalWouldObey(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\nwith lines\tand tabs", "plain text\nwith lines\tand tabs"},
		{"crlf\r\nkept", "crlf\r\nkept"},
		{"lone\rcarriage return", `lone\rcarriage return`},
		{"clip \x1b]52;c;cGF5bG9hZA==\x07 board", `clip \x1b]52;c;cGF5bG9hZA==\x07 board`},
		{"\x1b]8;;http://evil.example\x07link\x1b]8;;\x07", `\x1b]8;;http://evil.example\x07link\x1b]8;;\x07`},
		{"erase\x1b[2K\x1b[1Aup", `erase\x1b[2K\x1b[1Aup`},
		{"\x1b]0;title\x07", `\x1b]0;title\x07`},
		{"\x1b[8mconcealed\x1b[0m", `\x1b[8mconcealed\x1b[0m`},
		{"csi \u009b2J c1", `csi \u009b2J c1`},
		{"del\x7f", `del\x7f`},
		{"bidi \u202eevil\u202c \u2066iso\u2069 \u200f", `bidi \u202eevil\u202c \u2066iso\u2069 \u200f`},
		{"sep\u2028line", `sep\u2028line`},
		{"bad \xff byte", `bad \xff byte`},
		{"日本語 café 👩‍👩‍👧 **markdown** `code`", "日本語 café 👩‍👩‍👧 **markdown** `code`"},
	} {
		if got := Displayable(c.in); got != c.want {
			t.Errorf("Displayable(%q) = %q, want %q", c.in, got, c.want)
		}
		if DisplayableChanged(c.in) != (c.in != c.want) {
			t.Errorf("DisplayableChanged(%q) = %v", c.in, DisplayableChanged(c.in))
		}
	}
}

// TestDisplayableIsStable: what Displayable returns is safe to show and
// unchanged by a second pass, so boundaries that meet (a trace written to
// an escaping writer) escape once; nothing but the escaped runes changes.
func TestDisplayableIsStable(t *testing.T) {
	for _, in := range []string{
		"a\x1b[31mred\x1b[0m\r\n\u202e\xff\xc3",
		"\u009b\u0085\u2066\u061c\x00\x7f",
		"ok\r\n\r\nok\r",
	} {
		once := Displayable(in)
		if twice := Displayable(once); twice != once {
			t.Errorf("Displayable(Displayable(%q)) = %q, want %q", in, twice, once)
		}
		if DisplayableChanged(once) {
			t.Errorf("DisplayableChanged(%q) after escaping", once)
		}
		for _, r := range once {
			if r == 0x1b || (r >= 0x80 && r <= 0x9f) || r == 0x202e || r == 0xfffd {
				t.Errorf("Displayable(%q) = %q still holds %U", in, once, r)
			}
		}
	}
}

func TestDisplayableDiffSaysWhenItEscaped(t *testing.T) {
	clean := "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+日本 ✓\n"
	if got := DisplayableDiff(clean); got != clean {
		t.Errorf("a clean diff changed: %q", got)
	}
	hostile := "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\x1b]52;c;eA==\x07\u202e\n"
	got := DisplayableDiff(hostile)
	want := EscapedDiffNote + "\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\\x1b]52;c;eA==\\x07\\u202e\n"
	if got != want {
		t.Errorf("DisplayableDiff = %q, want %q", got, want)
	}
}

func BenchmarkDisplayableCleanText(b *testing.B) {
	text := string(make([]byte, 0)) + "func main() {\n\tfmt.Println(\"hello, 世界\")\n}\n"
	for b.Loop() {
		Displayable(text)
	}
}
