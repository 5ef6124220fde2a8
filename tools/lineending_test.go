package tools

import "testing"

func TestWithEnding(t *testing.T) {
	for _, c := range []struct{ text, want, got string }{
		{"a\nb\n", "\r\n", "a\r\nb\r\n"},
		{"a\nb", "\r\n", "a\r\nb"},
		{"a\r\nb\n", "\r\n", "a\r\nb\n"}, // the model wrote CRLF itself: as it is
		{"one line", "\r\n", "one line"},
		{"a\nb\n", "\n", "a\nb\n"},
		{"a\r\nb\r\n", "\n", "a\r\nb\r\n"}, // never CRLF to LF
		{"a\nb\n", "", "a\nb\n"},
	} {
		if got := withEnding(c.text, c.want); got != c.got {
			t.Errorf("withEnding(%q, %q) = %q, want %q", c.text, c.want, got, c.got)
		}
	}
	for _, c := range []struct {
		existing string
		exists   bool
		newFile  string
		want     string
	}{
		{"", false, "\r\n", "\r\n"}, // a new file on Windows
		{"", false, "\n", "\n"},     // a new file elsewhere
		{"a\r\nb\r\n", true, "\n", "\r\n"},
		{"a\nb\n", true, "\r\n", "\n"}, // an LF file on Windows stays LF
		{"one line", true, "\r\n", ""},
	} {
		if got := endingFor(c.existing, c.exists, c.newFile); got != c.want {
			t.Errorf("endingFor(%q, %v, %q) = %q, want %q", c.existing, c.exists, c.newFile, got, c.want)
		}
	}
}

// TestWriteFileKeepsCRLF: a whole-file write of a CRLF file, written with
// bare line breaks as models write, stays CRLF; a new file gets the
// system's ending.
func TestWriteFileKeepsCRLF(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"crlf.txt": "one\r\ntwo\r\n"})
	r, w := newTestRegistry(t, root)
	if res := call(t, r, "write_file", map[string]any{"path": "crlf.txt", "content": "uno\ndos\ntres\n"}); res.IsError {
		t.Fatal(res.Text)
	}
	if f, _ := w.Read("crlf.txt"); f.Text != "uno\r\ndos\r\ntres\r\n" {
		t.Errorf("CRLF file became %q", f.Text)
	}
	if res := call(t, r, "write_file", map[string]any{"path": "new.txt", "content": "a\nb\n"}); res.IsError {
		t.Fatal(res.Text)
	}
	if f, _ := w.Read("new.txt"); f.Text != withEnding("a\nb\n", newFileEnding) {
		t.Errorf("new file: %q", f.Text)
	}
}
