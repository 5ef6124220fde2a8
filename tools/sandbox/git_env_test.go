package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// envValues are the values of name in env, its case ignored on Windows.
func envValues(env []string, name string, win bool) []string {
	var vals []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == name || (win && strings.EqualFold(k, name)) {
			vals = append(vals, v)
		}
	}
	return vals
}

// callerGit is what a caller's environment could say to git: all of it is
// dropped, whatever its spelling.
var callerGit = []string{"GIT_DIR=/elsewhere", "Git_Dir=/elsewhere", "GIT_WORK_TREE=/", "GIT_CEILING_DIRECTORIES=",
	"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=touch /tmp/x", "GIT_CONFIG_GLOBAL=/evil",
	"GIT_EXTERNAL_DIFF=/evil", "GIT_PAGER=/evil", "GIT_SSH_COMMAND=/evil", "PATH=/bin"}

// TestEveryCommandsGitGetsCommandScopeConfig: at every level, on every
// system, git's command-scope config is gitConfig and only it.
func TestEveryCommandsGitGetsCommandScopeConfig(t *testing.T) {
	for _, win := range []bool{false, true} {
		env := environFor(callerGit, "/h", "/t", "/c", "", win)
		if got := envValues(env, "GIT_CONFIG_COUNT", win); !slices.Equal(got, []string{strconv.Itoa(len(gitConfig))}) {
			t.Errorf("win=%v: GIT_CONFIG_COUNT = %q", win, got)
		}
		for i, c := range gitConfig {
			n := strconv.Itoa(i)
			if k, v := envValues(env, "GIT_CONFIG_KEY_"+n, win), envValues(env, "GIT_CONFIG_VALUE_"+n, win); !slices.Equal(k, []string{c.key}) || !slices.Equal(v, []string{c.value}) {
				t.Errorf("win=%v: config %d = %q=%q, want %s=%s", win, i, k, v, c.key, c.value)
			}
		}
		for _, name := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_CONFIG_GLOBAL", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_SSH_COMMAND"} {
			if got := envValues(env, name, win); len(got) > 0 {
				t.Errorf("win=%v: the caller's %s passed: %q", win, name, got)
			}
		}
		keys := map[string]string{}
		for _, c := range gitConfig {
			keys[c.key] = c.value
		}
		if keys["safe.bareRepository"] != "explicit" || keys["core.fsmonitor"] != "false" {
			t.Errorf("gitConfig = %v", gitConfig)
		}
	}
}

// TestLevelNonePointsGitAtNoRepository, as text for Windows (whose
// runPlain passes a path in the command's scratch dir: git there takes
// /dev/null for a dir on the current drive) and elsewhere.
func TestLevelNonePointsGitAtNoRepository(t *testing.T) {
	for _, c := range []struct {
		win          bool
		copy, noRepo string
		ceiling      string
	}{
		{false, "/tmp/agent-lsp-sandbox-1/copy", noRepository, "/tmp/agent-lsp-sandbox-1"},
		// filepath here is Linux's: the Windows paths are spelled with
		// slashes, which Windows and git take too.
		{true, "C:/Users/me/AppData/Local/Temp/agent-lsp-sandbox-1/copy", "C:/Users/me/AppData/Local/Temp/agent-lsp-scratch-1/no-repository",
			"C:/Users/me/AppData/Local/Temp/agent-lsp-sandbox-1"},
	} {
		env := plainEnv(Spec{Env: callerGit, View: View{Root: "/ws", Copy: c.copy}, GitDir: "/ws/.git"}, "/h", "/t", "", c.noRepo, c.win, c.copy)
		for name, want := range map[string]string{"GIT_DIR": c.noRepo, "GIT_WORK_TREE": c.copy, "GIT_CEILING_DIRECTORIES": c.ceiling} {
			if got := envValues(env, name, c.win); !slices.Equal(got, []string{want}) {
				t.Errorf("win=%v: %s = %q, want just %q", c.win, name, got, want)
			}
		}
	}
}

// TestOnlyARealDirectoryIsTheRepository: a .git file or link, which the
// workspace could point anywhere, is no repository (gitRepository).
func TestOnlyARealDirectoryIsTheRepository(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "ws", ".git")
	os.MkdirAll(repo, 0o755)
	gitFile := filepath.Join(dir, "worktree", ".git")
	os.MkdirAll(filepath.Dir(gitFile), 0o755)
	os.WriteFile(gitFile, []byte("gitdir: /proc/self/cwd/evil\n"), 0o644)
	link := filepath.Join(dir, "linked", ".git")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(repo, link); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{repo: repo, gitFile: noRepository, link: noRepository,
		filepath.Join(dir, "missing", ".git"): noRepository, "": noRepository} {
		if got := gitRepository(in); got != want {
			t.Errorf("gitRepository(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSeatbeltGit: under Seatbelt git is pointed at the repository's real
// path, which the profile then lets it read, or at no repository.
func TestSeatbeltGit(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "ws", ".git")
	os.MkdirAll(repo, 0o755)
	os.Symlink(filepath.Join(dir, "ws"), filepath.Join(dir, "ws-link"))
	copy := filepath.Join(dir, "view", "copy")
	for _, c := range []struct {
		gitDir, wantDir string
		read            []string
	}{
		{filepath.Join(dir, "ws-link", ".git"), repo, []string{repo}},
		{noRepository, noRepository, nil},
		{filepath.Join(dir, "gone", ".git"), noRepository, nil},
	} {
		env, read := seatbeltGit(c.gitDir, copy)
		if !slices.Equal(read, c.read) || !slices.Equal(env, gitEnv(c.wantDir, copy)) {
			t.Errorf("seatbeltGit(%q) = %q, %q; want %q, %q", c.gitDir, env, read, gitEnv(c.wantDir, copy), c.read)
		}
	}
}
