package tools

import (
	"strings"
	"testing"
)

func TestPrintableEscapesWhatWouldHideOrReorderACommand(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"go test ./... 2>&1 | tail -20", "go test ./... 2>&1 | tail -20"},
		{`printf 'a\nb' | grep "x\|y"`, `printf 'a\nb' | grep "x\|y"`},
		{"héllo wörld → ✓ 日本", "héllo wörld → ✓ 日本"},
		{"ls\nrm -rf ~", `ls\nrm -rf ~`},
		{"ls\r\n", `ls\r\n`},
		{"a\tb", `a\tb`},
		{"echo ok\x1b[2K\x1b[1Grm -rf ~", `echo ok\x1b[2K\x1b[1Grm -rf ~`},
		{"echo \u202egnp.exe", `echo \u202egnp.exe`},
		{"x\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069y", `x\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069y`},
		{"c\x00d\x7f\u0085\u009b", `c\x00d\x7f\u0085\u009b`},
		{"zero\u200bwidth\ufeff", `zero\u200bwidth\ufeff`},
		{"line\u2028sep\u00a0nbsp", `line\u2028sep\u00a0nbsp`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"tag \U000E0041", `tag \U000e0041`},
	} {
		got := Printable(c.in)
		if got != c.want {
			t.Errorf("Printable(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.ContainsAny(got, "\n\r\x1b\u202e") {
			t.Errorf("Printable(%q) still holds a control: %q", c.in, got)
		}
	}
}
