package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var (
	posixStyle   = pathStyle{}
	macStyle     = pathStyle{foldCase: true}
	windowsStyle = pathStyle{windows: true, foldCase: true}
)

// TestNativePaths: how a model's spelling of a path becomes the system's.
func TestNativePaths(t *testing.T) {
	for _, c := range []struct {
		style     pathStyle
		in, root  string
		want      string
		withinToo bool // the result is inside root
	}{
		{posixStyle, "src/a.go", "/w", "src/a.go", false},
		{posixStyle, `src\a.go`, "/w", `src\a.go`, false}, // a file name with a backslash in it here
		{windowsStyle, "src/a.go", `C:\w`, `src\a.go`, false},
		{windowsStyle, `src\a.go`, `C:\w`, `src\a.go`, false},
		{windowsStyle, "C:/w/src/a.go", `C:\w`, `C:\w\src\a.go`, true},
		{windowsStyle, "c:/W/src/a.go", `C:\w`, `c:\W\src\a.go`, true},
		{windowsStyle, "/c/w/src/a.go", `C:\w`, `C:\w\src\a.go`, true}, // Git Bash's spelling
		{windowsStyle, "/d", `C:\w`, `D:\`, false},
		{windowsStyle, "/work/src/a.go", `C:\work`, `C:\work\src\a.go`, true}, // rooted: on the root's drive
		{windowsStyle, "/w/src/a.go", `C:\w`, `W:\src\a.go`, false},           // one letter: a drive, as Git Bash has it
		{windowsStyle, `\Users\me\.ssh\id_rsa`, `C:\w`, `C:\Users\me\.ssh\id_rsa`, false},
		{windowsStyle, "/work/a.go", `\\srv\share\work`, `\\srv\share\work\a.go`, true},
		{windowsStyle, `\\srv\share\x`, `C:\w`, `\\srv\share\x`, false},
		{windowsStyle, "//srv/share/x", `C:\w`, `\\srv\share\x`, false},
	} {
		got := c.style.native(c.in, c.root)
		if got != c.want {
			t.Errorf("%+v native(%q) = %q, want %q", c.style, c.in, got, c.want)
		}
		if in := c.style.within(c.root, got); in != c.withinToo {
			t.Errorf("%+v within(%q, %q) = %v", c.style, c.root, got, in)
		}
	}
}

// TestWindowsFileNames: what Windows would not store as the file the model
// named is refused, on Windows only.
func TestWindowsFileNames(t *testing.T) {
	for _, bad := range []string{`C:\w\a.txt:secret`, `C:a.go`, `src\CON`, `src\nul.txt`, `com1.log`, `Lpt9`, `a<b`, `a|b`, `what?`, `x*`,
		`src\a.go.`, `src\a.go `, `.git.\config`, "a\x01b", `CONIN$`} {
		if err := windowsStyle.check(bad); err == nil {
			t.Errorf("%q was accepted on Windows", bad)
		}
		if err := posixStyle.check(bad); err != nil {
			t.Errorf("%q was refused elsewhere: %v", bad, err)
		}
	}
	for _, good := range []string{`C:\w\src\a.go`, `\\srv\share\a.go`, `src\console.go`, `com10.txt`, `nulls\x`, `..\x`, `.\a`, `a b\c.d`, `コード.go`} {
		if err := windowsStyle.check(good); err != nil {
			t.Errorf("%q was refused: %v", good, err)
		}
	}
}

// TestWithin: confinement per system, case-blind where the volume is.
func TestWithin(t *testing.T) {
	for _, c := range []struct {
		style   pathStyle
		root, p string
		want    bool
	}{
		{posixStyle, "/w", "/w", true},
		{posixStyle, "/w", "/w/a", true},
		{posixStyle, "/w", "/wx/a", false},
		{posixStyle, "/w", "/W/a", false},
		{posixStyle, "/", "/a", true},
		{macStyle, "/Users/me/w", "/users/ME/W/a.go", true},
		{macStyle, "/Users/me/w", "/Users/me/wx", false},
		{macStyle, "/Users/me/w", "/Users/me/W", true},
		{windowsStyle, `C:\w`, `c:\W\a.go`, true},
		{windowsStyle, `C:\w`, `C:\wx`, false},
		{windowsStyle, `C:\w`, `D:\w\a`, false},
		{windowsStyle, `C:\`, `C:\a`, true},
		{pathStyle{windows: true}, `C:\w`, `c:\W\a.go`, false}, // the strict test
	} {
		if got := c.style.within(c.root, c.p); got != c.want {
			t.Errorf("%+v within(%q, %q) = %v", c.style, c.root, c.p, got)
		}
	}
	if got := windowsStyle.rel(`C:\w`, `c:\W\src\a.go`); got != "src/a.go" {
		t.Errorf("rel = %q", got)
	}
	if got := windowsStyle.rel(`C:\w`, `C:\w`); got != "." {
		t.Errorf("rel of the root = %q", got)
	}
}

// TestCaseBlindWorkspace: on a volume that ignores case, two spellings of
// one file are one staged change, a read in another case sees it, the
// absolute path starts with the root as the workspace spells it, and .git
// in any case is refused. (Linux's volumes tell case apart; the style is
// the one macOS and Windows workspaces get.)
func TestCaseBlindWorkspace(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.cur.paths.foldCase {
		t.Skip("this volume ignores case: the style is found, not set")
	}
	w.cur.paths = macStyle
	if _, err := w.Stage("README.md", "one\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Stage("readme.MD", "two\n"); err != nil {
		t.Fatal(err)
	}
	changes := w.Changes()
	if len(changes) != 1 || changes[0].Path != "README.md" || changes[0].New != "two\n" || changes[0].Original != "old\n" {
		t.Errorf("changes = %+v, want one change of README.md to two", changes)
	}
	f, err := w.Read("ReadMe.md")
	if err != nil || f.Text != "two\n" || f.Source != FromStaged {
		t.Errorf("read in another case: %+v %v", f, err)
	}
	if got := w.stagedPaths("."); len(got) != 1 || got[0] != "README.md" {
		t.Errorf("stagedPaths = %q", got)
	}
	upper := strings.ToUpper(w.Root())
	abs, rel, err := w.Resolve(filepath.Join(upper, "sub", "x.go"))
	if err != nil || rel != "sub/x.go" || abs != filepath.Join(w.Root(), "sub", "x.go") {
		t.Errorf("an absolute path in another case: %q %q %v", abs, rel, err)
	}
	if _, err := w.Stage(".GIT/hooks/pre-commit", "x"); !errors.Is(err, ErrGitDir) {
		t.Errorf(".GIT: %v", err)
	}
	w.Restore(changes)
	if _, err := w.Stage("readme.md", "three\n"); err != nil || len(w.Changes()) != 1 {
		t.Errorf("after Restore, another spelling made another change: %+v", w.Changes())
	}
}

// TestCaseInsensitiveProbe: a Linux temp dir tells case apart, and an
// empty dir or one without letters keeps the fallback.
func TestCaseInsensitiveProbe(t *testing.T) {
	dir := t.TempDir()
	if !caseInsensitive(dir, true) || caseInsensitive(dir, false) {
		t.Error("an empty dir did not keep the fallback")
	}
	for _, name := range []string{"123", "Makefile"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if caseInsensitive(dir, true) {
		t.Error("a case-sensitive dir was taken for a case-blind one")
	}
	// Both spellings present and different files: case-sensitive.
	if err := os.WriteFile(filepath.Join(dir, "mAKEFILE"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if caseInsensitive(dir, true) {
		t.Error("two files differing in case were taken for one")
	}
}
