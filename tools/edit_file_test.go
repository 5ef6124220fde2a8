package tools

import (
	"strings"
	"testing"
)

func TestEditFile(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"crlf.txt": "one\r\ntwo\r\nthree\r\n",
		"dup.go":   "x := 1\nx := 1\n",
	})
	r, w := newTestRegistry(t, root)

	res := call(t, r, "edit_file", map[string]any{"path": "crlf.txt", "old_string": "one\ntwo", "new_string": "uno\ndos"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	if f, _ := w.Read("crlf.txt"); f.Text != "uno\r\ndos\r\nthree\r\n" {
		t.Fatalf("CRLF file became %q", f.Text)
	}

	res = call(t, r, "edit_file", map[string]any{"path": "dup.go", "old_string": "x := 1", "new_string": "x := 2"})
	if !res.IsError || !strings.Contains(res.Text, "matches 2 places") {
		t.Fatalf("non-unique match: %+v", res)
	}
	res = call(t, r, "edit_file", map[string]any{"path": "dup.go", "old_string": "x := 1", "new_string": "x := 2", "replace_all": true})
	if res.IsError {
		t.Fatal(res.Text)
	}
	if f, _ := w.Read("dup.go"); f.Text != "x := 2\nx := 2\n" {
		t.Fatalf("replace_all: %q", f.Text)
	}

	res = call(t, r, "edit_file", map[string]any{"path": "dup.go", "old_string": "absent", "new_string": "y"})
	if !res.IsError || !strings.Contains(res.Text, "not found") {
		t.Fatalf("missing match: %+v", res)
	}
	for _, blank := range []string{"", "  \n\t"} {
		res = call(t, r, "edit_file", map[string]any{"path": "dup.go", "old_string": blank, "new_string": "y"})
		if !res.IsError || !strings.Contains(res.Text, "empty or whitespace") {
			t.Fatalf("blank old_string %q: %+v", blank, res)
		}
	}
	res = call(t, r, "edit_file", map[string]any{"path": "new/file.txt", "old_string": "", "new_string": "hi\n"})
	if res.IsError {
		t.Fatal(res.Text)
	}
	if f, _ := w.Read("new/file.txt"); f.Text != "hi\n" || f.Source != FromStaged {
		t.Fatalf("new file: %+v", f)
	}
}

func TestReadFileLinesAndLimits(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		b.WriteString("line\n")
	}
	writeTree(t, root, map[string]string{"big.txt": b.String(), "bin": "a\x00b"})
	r, _ := newTestRegistry(t, root)
	res := call(t, r, "read_file", map[string]any{"path": "big.txt"})
	if !strings.HasPrefix(res.Text, "     1\tline\n") || !strings.Contains(res.Text, "showing lines 1-2000 of 3000; call read_file with offset=2001") {
		t.Fatalf("default read: %.80q … %q", res.Text, res.Text[len(res.Text)-80:])
	}
	res = call(t, r, "read_file", map[string]any{"path": "big.txt", "offset": 2999, "limit": 5})
	if res.Text != "  2999\tline\n  3000\tline\n" {
		t.Fatalf("tail read: %q", res.Text)
	}
	if res = call(t, r, "read_file", map[string]any{"path": "big.txt", "offset": 4000}); !res.IsError {
		t.Fatalf("offset past end: %+v", res)
	}
	if res = call(t, r, "read_file", map[string]any{"path": "bin"}); !res.IsError || !strings.Contains(res.Text, "binary") {
		t.Fatalf("binary: %+v", res)
	}
	if res = call(t, r, "read_file", map[string]any{"path": "nope.txt"}); !res.IsError || !strings.Contains(res.Text, "no such file") {
		t.Fatalf("missing: %+v", res)
	}
}

// TestEditFileMixedLineEndings edits a file whose first half is CRLF and
// second half LF: each replacement takes the ending of the lines it
// replaces, or of the line it is on when it spans no line break.
func TestEditFileMixedLineEndings(t *testing.T) {
	const mixed = "a\r\nb\r\nc\r\nd\ne\nf\n"
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"lines in the CRLF half", "a\nb", "A\nB\nB2", "A\r\nB\r\nB2\r\nc\r\nd\ne\nf\n"},
		{"lines in the LF half", "e\nf\n", "E\nF\nG\n", "a\r\nb\r\nc\r\nd\nE\nF\nG\n"},
		{"old_string with CRLF in the LF half", "d\r\ne", "D\r\nE", "a\r\nb\r\nc\r\nD\nE\nf\n"},
		{"within a CRLF line", "b", "b1\nb2", "a\r\nb1\r\nb2\r\nc\r\nd\ne\nf\n"},
		{"within an LF line", "e", "e1\ne2", "a\r\nb\r\nc\r\nd\ne1\ne2\nf\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, map[string]string{"mixed.txt": mixed})
			r, w := newTestRegistry(t, root)
			res := call(t, r, "edit_file", map[string]any{"path": "mixed.txt", "old_string": c.old, "new_string": c.new})
			if res.IsError {
				t.Fatal(res.Text)
			}
			if f, _ := w.Read("mixed.txt"); f.Text != c.want {
				t.Fatalf("got %q, want %q", f.Text, c.want)
			}
		})
	}
}
