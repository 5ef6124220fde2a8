package fileuri

import (
	"errors"
	"testing"

	"go.lsp.dev/uri"
)

// TestToPath: what editors send on each system, and what is refused.
func TestToPath(t *testing.T) {
	for _, c := range []struct {
		sys  System
		in   string
		want string // "" = refused
	}{
		{POSIX, "file:///home/me/a.go", "/home/me/a.go"},
		{POSIX, "file:///home/me/with%20space/%C3%A9.go", "/home/me/with space/é.go"},
		{POSIX, "file:///home/me/../me/./a.go", "/home/me/a.go"},
		{POSIX, "file://localhost/etc/hosts", "/etc/hosts"},
		{POSIX, "file://otherhost/etc/hosts", ""},
		{POSIX, "file:///C:/x", "/C:/x"}, // a directory named C: here
		{POSIX, "untitled:Untitled-1", ""},
		{POSIX, "https://example.com/a.go", ""},
		{POSIX, "", ""},
		{Windows, "file:///C:/Users/me/a.go", `C:\Users\me\a.go`},
		{Windows, "file:///c:/Users/me/a.go", `C:\Users\me\a.go`},
		{Windows, "file:///c%3A/Users/me/a.go", `C:\Users\me\a.go`}, // VS Code
		{Windows, "file:///C%3A/Users/me/with%20space/a.go", `C:\Users\me\with space\a.go`},
		{Windows, "file:///d:", `D:\`},
		{Windows, "file:///C:/a/../b/./c.go", `C:\b\c.go`},
		{Windows, "file:///C:/../../x", `C:\x`},
		{Windows, "file://server/share/dir/a.go", `\\server\share\dir\a.go`},
		{Windows, "file://Server/Share/a.go", `\\Server\Share\a.go`},
		{Windows, "file://server/share", `\\server\share\`},
		{Windows, "file://server/", ""},
		{Windows, "file://./C:/x", ""}, // a device path
		{Windows, "file://localhost/C:/x", `C:\x`},
		{Windows, "file:///home/me/a.go", ""}, // no drive
		{Windows, "file:///C:x", ""},          // drive-relative
		{Windows, "untitled:Untitled-1", ""},
	} {
		got, err := ToPath(uri.URI(c.in), c.sys)
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%v %q: got %q, want an error", c.sys, c.in, got)
		case c.want == "" && !errors.Is(err, ErrNotFile):
			t.Errorf("%v %q: error %v is not ErrNotFile", c.sys, c.in, err)
		case c.want != "" && (err != nil || got != c.want):
			t.Errorf("%v %q: got %q, %v, want %q", c.sys, c.in, got, err, c.want)
		}
	}
}

// TestFromPath: the URIs the server sends, and that they read back as the
// same path.
func TestFromPath(t *testing.T) {
	for _, c := range []struct {
		sys      System
		in, want string
	}{
		{POSIX, "/home/me/a.go", "file:///home/me/a.go"},
		{POSIX, "/home/me/with space/é#1.go", "file:///home/me/with%20space/%C3%A9%231.go"},
		{Windows, `C:\Users\me\a.go`, "file:///c%3A/Users/me/a.go"},
		{Windows, `c:\Users\me\with space\a.go`, "file:///c%3A/Users/me/with%20space/a.go"},
		{Windows, `\\server\share\dir\a.go`, "file://server/share/dir/a.go"},
	} {
		got := FromPath(c.in, c.sys)
		if string(got) != c.want {
			t.Errorf("%v %q: got %s, want %s", c.sys, c.in, got, c.want)
		}
		back, err := ToPath(got, c.sys)
		if err != nil {
			t.Errorf("%v %s does not read back: %v", c.sys, got, err)
			continue
		}
		if want := c.in; c.sys == Windows && want[1] == ':' {
			want = string(want[0]&^0x20) + want[1:] // the drive letter comes back upper-case
			if back != want {
				t.Errorf("%v %s reads back as %q, want %q", c.sys, got, back, want)
			}
		} else if back != c.in {
			t.Errorf("%v %s reads back as %q", c.sys, got, back)
		}
	}
}
