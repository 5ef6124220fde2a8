//go:build unix

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// plantBareRepo makes dir a repository's git dir and its work tree at once
// (HEAD, config, objects/, refs/ beside the files), whose core.fsmonitor
// creates marker: what a cloned project or the model can put anywhere.
func plantBareRepo(t *testing.T, dir, marker string) {
	t.Helper()
	for _, d := range []string{"objects", "refs/heads"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = \"touch " + marker + "; false\"\n"
	for name, content := range map[string]string{"HEAD": "ref: refs/heads/main\n", "config": config, "a.txt": "a\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGitEnvironmentsBelowFullFindNoRepository runs the host's git with
// the git environment each level below full builds — none here and on
// Windows (its GIT_* part, run by this system's git), Seatbelt's — in a
// copy holding a planted repository at its root and in a subdirectory:
// the planted core.fsmonitor never runs. The control, the same git
// without that environment, runs it.
func TestGitEnvironmentsBelowFullFindNoRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	copy, marks, home := filepath.Join(dir, "view", "copy"), filepath.Join(dir, "marks"), filepath.Join(dir, "home")
	for _, d := range []string{marks, home} {
		os.Mkdir(d, 0o755)
	}
	plantBareRepo(t, copy, filepath.Join(marks, "root"))
	plantBareRepo(t, filepath.Join(copy, "sub"), filepath.Join(marks, "sub"))
	// The workspace's own repository, which Seatbelt points git at.
	repo := filepath.Join(dir, "ws", ".git")
	gitStatus := func(env []string, in string) string {
		cmd := exec.Command("git", "status")
		cmd.Dir, cmd.Env = in, env
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out, err := exec.Command("git", "init", "-q", filepath.Dir(repo)).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	spec := Spec{Env: []string{"PATH=" + os.Getenv("PATH")}, View: View{Copy: copy}}
	noRepo, _ := seatbeltGit(noRepository, copy)
	withRepo, _ := seatbeltGit(repo, copy)
	for _, c := range []struct {
		level string
		env   []string
		want  string // in git's output
	}{
		{"none", plainEnv(spec, home, dir, "", noRepository, false, spec.View.Copy), "not a git repository"},
		{"none on Windows", plainEnv(spec, home, dir, "", filepath.Join(dir, "scratch", "no-repository"), true, spec.View.Copy), "not a git repository"},
		{"seatbelt", append(environ(spec.Env, home, dir, "", ""), noRepo...), "not a git repository"},
		{"seatbelt with a repository", append(environ(spec.Env, home, dir, "", ""), withRepo...), "Untracked files"},
	} {
		for _, in := range []string{copy, filepath.Join(copy, "sub")} {
			out := gitStatus(c.env, in)
			if entries, _ := os.ReadDir(marks); len(entries) > 0 {
				t.Errorf("%s, git status in %s ran the planted core.fsmonitor (%s):\n%s", c.level, in, entries[0].Name(), out)
				os.RemoveAll(marks)
				os.Mkdir(marks, 0o755)
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("%s, git status in %s says, without %q:\n%s", c.level, in, c.want, out)
			}
		}
	}
	// The control: the same git without that environment obeys the plant.
	for _, in := range []string{copy, filepath.Join(copy, "sub")} {
		out := gitStatus([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1"}, in)
		mark := filepath.Join(marks, filepath.Base(in))
		if filepath.Base(in) == "copy" {
			mark = filepath.Join(marks, "root")
		}
		if _, err := os.Stat(mark); err != nil {
			t.Errorf("control: git status in %s did not run the planted core.fsmonitor: the test is blind:\n%s", in, out)
		}
	}
}
