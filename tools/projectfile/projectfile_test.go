package projectfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const secret = "-----BEGIN OPENSSH PRIVATE KEY----- not-for-the-model"

// tree is a workspace (root) beside a directory it must not reach (outside,
// holding the secret).
type tree struct{ root, outside string }

func newTree(t *testing.T) tree {
	t.Helper()
	var tr tree
	for _, p := range []*string{&tr.root, &tr.outside} {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		*p = dir
	}
	tr.write(t, tr.outside, "secret", secret)
	tr.write(t, tr.root, "docs/real.md", "the project's own words\n")
	return tr
}

func (tree) write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// link makes root/rel a symlink to target, or skips where the system
// does not let this user make one (Windows without developer mode).
func (tr tree) link(t *testing.T, target, rel string) {
	t.Helper()
	p := filepath.Join(tr.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
}

func TestAFileBeneathTheRootIsRead(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		tr := newTree(t)
		tr.write(t, tr.root, "AGENTS.md", "Use tabs.\n")
		for _, rel := range []string{"AGENTS.md", "docs/real.md", "docs/../AGENTS.md", "./AGENTS.md"} {
			data, cut, err := Read(tr.root, rel, 1<<10)
			if err != nil || cut || len(data) == 0 {
				t.Errorf("%s: %q cut=%v %v", rel, data, cut, err)
			}
		}
	})
}

func TestALinkThatStaysBeneathTheRootIsFollowed(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		tr := newTree(t)
		tr.link(t, filepath.Join("docs", "real.md"), "AGENTS.md")
		tr.link(t, "docs", "alias")
		tr.link(t, filepath.Join("..", "docs", "real.md"), "sub/up.md")
		for _, rel := range []string{"AGENTS.md", "alias/real.md", "sub/up.md"} {
			if data, err := ReadWhole(tr.root, rel, 1<<10); err != nil || string(data) != "the project's own words\n" {
				t.Errorf("%s: %q %v", rel, data, err)
			}
		}
	})
}

// TestALinkOutIsRefused: every way out of the root is refused with
// ErrOutside and gives nothing of the target; the control reads the same
// link as os.ReadFile does and finds the secret, so the link is real.
func TestALinkOutIsRefused(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		tr := newTree(t)
		abs := filepath.Join(tr.outside, "secret")
		up, err := filepath.Rel(tr.root, abs)
		if err != nil {
			t.Fatal(err)
		}
		tr.link(t, abs, "AGENTS.md")                                    // absolute
		tr.link(t, up, ".mcp.json")                                     // climbing out with ..
		tr.link(t, tr.outside, "vendor")                                // a directory on the way
		tr.link(t, filepath.Join(tr.root, "docs", "real.md"), "abs.md") // absolute, even into the root
		for _, rel := range []string{"AGENTS.md", ".mcp.json", "vendor/secret", "abs.md", "../" + filepath.Base(tr.outside) + "/secret", filepath.ToSlash(abs)} {
			data, cut, err := Read(tr.root, rel, 1<<10)
			if !errors.Is(err, ErrOutside) || data != nil || cut {
				t.Errorf("%s: %q %v, want ErrOutside", rel, data, err)
				continue
			}
			if !strings.Contains(err.Error(), filepath.Join(tr.root, filepath.FromSlash(rel))) && !filepath.IsAbs(rel) {
				t.Errorf("%s: the message does not name the file: %v", rel, err)
			}
		}
		for _, rel := range []string{"AGENTS.md", ".mcp.json", "vendor/secret"} {
			if data, err := os.ReadFile(filepath.Join(tr.root, rel)); err != nil || string(data) != secret {
				t.Errorf("control: %s does not lead to the secret (%q, %v): the test is blind", rel, data, err)
			}
		}
	})
}

func TestWhatIsNotARegularFileIsRefused(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		tr := newTree(t)
		_, _, err := Read(tr.root, "docs", 1<<10)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a directory") {
			t.Errorf("a directory: %v", err)
		}
		if _, _, err := Read(tr.root, "AGENTS.md", 1<<10); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("missing: %v, want fs.ErrNotExist", err)
		}
		if _, _, err := Read(tr.root, "docs/real.md/x", 1<<10); err == nil {
			t.Error("a file read as a directory")
		}
	})
}

func TestTheCapIsFixedBeforeReading(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		tr := newTree(t)
		tr.write(t, tr.root, "AGENTS.md", "0123456789")
		for _, c := range []struct {
			limit int64
			want  string
			cut   bool
		}{{4, "0123", true}, {9, "012345678", true}, {10, "0123456789", false}, {1 << 20, "0123456789", false}, {0, "", true}, {-1, "", true}} {
			data, cut, err := Read(tr.root, "AGENTS.md", c.limit)
			if err != nil || string(data) != c.want || cut != c.cut {
				t.Errorf("limit %d: %q cut=%v %v", c.limit, data, cut, err)
			}
		}
		data, err := ReadWhole(tr.root, "AGENTS.md", 9)
		if !errors.Is(err, ErrTooLarge) || data != nil || !strings.Contains(err.Error(), filepath.Join(tr.root, "AGENTS.md")) || !strings.Contains(err.Error(), "10 bytes") {
			t.Errorf("whole over the cap: %q %v", data, err)
		}
		if data, err := ReadWhole(tr.root, "AGENTS.md", 10); err != nil || string(data) != "0123456789" {
			t.Errorf("whole at the cap: %q %v", data, err)
		}
	})
}

func BenchmarkRead(b *testing.B) {
	root := b.TempDir()
	text := strings.Repeat("Run the tests with make test before you answer.\n", 40) // a 2 KB AGENTS.md
	if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	eachWay(b, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if data, _, err := Read(root, "AGENTS.md", 32<<10); err != nil || len(data) != len(text) {
				b.Fatal(len(data), err)
			}
		}
	})
}

// TestReadNoFollowRefusesALastLinkOnly: as git opens a worktree's
// .gitignore, a link in the last place is refused even beneath the root;
// a linked directory on the way is followed.
func TestReadNoFollowRefusesALastLinkOnly(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		tr := newTree(t)
		tr.write(t, tr.root, ".gitignore", "*.log\n")
		tr.write(t, tr.root, "docs/.gitignore", "*.tmp\n")
		tr.link(t, "docs", "alias")
		tr.link(t, filepath.Join("..", ".gitignore"), "sub/.gitignore")
		tr.link(t, filepath.Join(tr.outside, "secret"), "out/.gitignore")
		for rel, want := range map[string]string{".gitignore": "*.log\n", "alias/.gitignore": "*.tmp\n"} {
			if data, cut, err := ReadNoFollow(tr.root, rel, 1<<10); err != nil || cut || string(data) != want {
				t.Errorf("%s: %q %v", rel, data, err)
			}
		}
		for _, rel := range []string{"sub/.gitignore", "out/.gitignore"} {
			data, _, err := ReadNoFollow(tr.root, rel, 1<<10)
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a symlink") || data != nil {
				t.Errorf("%s: %q %v, want ErrNotRegular (a symlink)", rel, data, err)
			}
		}
		if _, _, err := ReadNoFollow(tr.root, "none/.gitignore", 1<<10); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("missing: %v", err)
		}
		if _, _, err := Read(tr.root, "sub/.gitignore", 1<<10); err != nil {
			t.Errorf("control: Read does follow the link beneath the root: %v", err)
		}
	})
}

// A last component os.Root calls irregular (a junction on Windows) is
// refused as what it is, not as "a symlink".
func TestAnIrregularFileIsNotCalledALink(t *testing.T) {
	if err := notALastLink(fs.ModeIrregular); err == nil || strings.Contains(err.Error(), "symlink") || !strings.Contains(err.Error(), "irregular") {
		t.Fatalf("irregular: %v", err)
	}
	if err := notALastLink(fs.ModeSymlink); err != aLink {
		t.Fatalf("symlink: %v", err)
	}
	if err := notALastLink(0); err != nil {
		t.Fatalf("regular: %v", err)
	}
}
