//go:build unix

package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// What a repository's git metadata can make the tools read: each file is
// read beneath the directory git would look in, never through a link out of
// it, only a regular file. Each case has its control: the same content as a
// regular file does take effect.

// isolatedGit keeps the user's own git config and excludes out of the test.
func isolatedGit(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
}

// baseRulesPromptly is baseRules, failing the test as a hang if it waits
// (on a FIFO): a watchdog, not a measure of speed.
func baseRulesPromptly(t *testing.T, root string) *ignoreRules {
	t.Helper()
	done := make(chan *ignoreRules, 1)
	go func() { done <- baseRules(root) }()
	select {
	case r := <-done:
		return r
	case <-time.After(time.Minute):
		t.Fatal("reading the repository's excludes hung")
	}
	return nil
}

func TestInfoExcludeIsReadOnlyBeneathTheGitDir(t *testing.T) {
	isolatedGit(t)
	for _, c := range []struct {
		name    string
		plant   func(t *testing.T, exclude, outside string)
		applied bool
	}{
		{"a regular file (the control)", func(t *testing.T, exclude, outside string) {
			writeTree(t, filepath.Dir(exclude), map[string]string{"exclude": "by-info\n"})
		}, true},
		{"a link within .git", func(t *testing.T, exclude, outside string) {
			writeTree(t, filepath.Dir(exclude), map[string]string{"mine": "by-info\n"})
			mustSymlink(t, "mine", exclude)
		}, true},
		{"a link out of the workspace", func(t *testing.T, exclude, outside string) {
			mustSymlink(t, outside, exclude)
		}, false},
		{"a link to /dev/zero", func(t *testing.T, exclude, _ string) {
			mustSymlink(t, "/dev/zero", exclude)
		}, false},
		{"a FIFO", func(t *testing.T, exclude, _ string) {
			if err := syscall.Mkfifo(exclude, 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, elsewhere := t.TempDir(), t.TempDir()
			writeTree(t, elsewhere, map[string]string{"patterns": "by-info\n"})
			os.MkdirAll(filepath.Join(root, ".git", "info"), 0o755)
			c.plant(t, filepath.Join(root, ".git", "info", "exclude"), filepath.Join(elsewhere, "patterns"))
			if got := baseRulesPromptly(t, root).ignored("by-info", false); got != c.applied {
				t.Errorf("by-info ignored: %v, want %v", got, c.applied)
			}
		})
	}
}

// TestADotGitFileLinkedOutIsNotFollowed: a .git file says where the git dir
// is; a .git that is a link out of the workspace is not read at all.
func TestADotGitFileLinkedOutIsNotFollowed(t *testing.T) {
	isolatedGit(t)
	elsewhere := t.TempDir()
	gitDir := filepath.Join(elsewhere, "repo.git")
	writeTree(t, gitDir, map[string]string{"info/exclude": "by-info\n"})
	writeTree(t, elsewhere, map[string]string{"dotgit": "gitdir: " + gitDir + "\n"})

	control := t.TempDir()
	writeTree(t, control, map[string]string{".git": "gitdir: " + gitDir + "\n"})
	if !baseRulesPromptly(t, control).ignored("by-info", false) {
		t.Fatal("control: a regular .git file naming the git dir is not followed: the test is blind")
	}
	root := t.TempDir()
	mustSymlink(t, filepath.Join(elsewhere, "dotgit"), filepath.Join(root, ".git"))
	if baseRulesPromptly(t, root).ignored("by-info", false) {
		t.Error("a .git linked out of the workspace was read")
	}
	zero := t.TempDir()
	mustSymlink(t, "/dev/zero", filepath.Join(zero, ".git"))
	if rules := baseRulesPromptly(t, zero); len(rules.files) != 0 {
		t.Errorf("a .git linked to /dev/zero gave patterns: %v", rules.files)
	}
}

// TestTheIndexIsReadOnlyBeneathTheGitDir: which files are tracked comes
// from the repository's own index, not from one a link points at.
func TestTheIndexIsReadOnlyBeneathTheGitDir(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH: no index to read")
	}
	isolatedGit(t)
	other := t.TempDir()
	writeTree(t, other, map[string]string{"secret-name.txt": "x"})
	git(t, other, "init", "-q")
	git(t, other, "add", "secret-name.txt")
	index := filepath.Join(other, ".git", "index")

	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{".git/index": string(data)})
	if got := trackedFiles(root); !slices.Equal(got, []string{"secret-name.txt"}) {
		t.Fatalf("control: a regular index gives %q: the test is blind", got)
	}
	os.Remove(filepath.Join(root, ".git", "index"))
	mustSymlink(t, index, filepath.Join(root, ".git", "index"))
	if got := trackedFiles(root); got != nil {
		t.Errorf("an index linked out of the workspace was read: %q", got)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
