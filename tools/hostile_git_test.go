//go:build linux

package tools

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// The hostile corpus, git: a repository's config, hooks and attributes'
// drivers run programs, and git finds a repository by walking up from where
// it runs — so a workspace could make the allowlisted git status, diff, log
// -p and show run its code. Each layout below is judged by markers its
// programs would make, and has an unsandboxed control in the same test: the
// same git without the sandbox's environment makes them.

// gitReadCommands are the allowlisted git commands, run as a model would.
var gitReadCommands = []string{"git status", "git diff", "git log -p", "git show"}

// evilHooks are hooks a read could run (an index written, a ref updated).
var evilHooks = []string{"post-index-change", "reference-transaction", "post-checkout", "pre-auto-gc", "fsmonitor-watchman"}

// marking is a shell command that makes the marker name twice: in marks,
// outside the workspace (reached on the host at level none), and as
// .pwned-NAME in the directory it runs in (the view, below full), then
// goes on with then.
func marking(marks, name, then string) string {
	return fmt.Sprintf("touch %s ./.pwned-%s; %s", filepath.Join(marks, name), name, then)
}

// evilConfig is a git dir's config in which every setting that runs a
// program marks (worktree: core.worktree, "" for none): fsmonitor, pager,
// ssh (a partial clone fetches a missing object over it), an external diff,
// a textconv and a filter driver (named by .gitattributes), and two files
// it includes, each defining one more driver.
func evilConfig(marks, worktree string) map[string]string {
	q := func(name, then string) string { return `"` + marking(marks, name, then) + `"` }
	wt := ""
	if worktree != "" {
		wt = "\tworktree = " + worktree + "\n"
	}
	return map[string]string{
		"config": "[core]\n\trepositoryformatversion = 1\n\tbare = false\n" + wt +
			"\tfsmonitor = " + q("fsmonitor", "false") + "\n\tpager = " + q("pager", "cat") + "\n\tsshCommand = " + q("ssh", "false") + "\n" +
			"[extensions]\n\tpartialClone = origin\n[remote \"origin\"]\n\turl = ssh://attacker.invalid/r\n\tpromisor = true\n" +
			"[diff]\n\texternal = " + q("diff-external", "false") + "\n" +
			"[diff \"evil\"]\n\ttextconv = " + q("textconv", "cat") + "\n" +
			"[filter \"evil\"]\n\tclean = " + q("filter", "cat") + "\n\tsmudge = " + q("filter", "cat") + "\n" +
			"[include]\n\tpath = included.config\n[includeIf \"onbranch:main\"]\n\tpath = included-if.config\n",
		"included.config":    "[diff \"inc\"]\n\ttextconv = " + q("include", "cat") + "\n",
		"included-if.config": "[filter \"inc\"]\n\tclean = " + q("includeif", "cat") + "\n",
	}
}

// evilAttributes name evilConfig's drivers; z.txt's blob is the one the
// partial clone lacks (last, so that the diffs before it are shown), and
// README is a clone's own file.
const evilAttributes = "a.txt diff=evil filter=evil\nc.txt diff=inc filter=inc\nz.txt diff=evil\nREADME diff=evil\n"

// attackerRepo builds, with the host's git, the attacker's repository: a
// commit of three files and .gitattributes, two of them changed since, one
// blob missing, its config evilConfig and hooks that mark. It returns the
// git dir's files and the work tree's.
func attackerRepo(t *testing.T, marks, worktree string) (gitDir, work map[string]string) {
	t.Helper()
	dir := t.TempDir()
	w := filepath.Join(dir, "w")
	work = map[string]string{"a.txt": "one\n", "c.txt": "sea\n", "z.txt": "zed\n", ".gitattributes": evilAttributes}
	writeTree(t, w, work)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = w, plainGitEnv(dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "one")
	missing := git("rev-parse", "HEAD:z.txt")
	work["a.txt"], work["c.txt"] = "two\n", "see\n"
	gitDir = evilConfig(marks, worktree)
	for _, h := range evilHooks {
		gitDir["hooks/"+h] = "#!/bin/sh\n" + marking(marks, "hook-"+h, "true") + "\n"
	}
	root := filepath.Join(w, ".git")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "HEAD" || rel == "index" || strings.HasPrefix(rel, "refs/") ||
			(strings.HasPrefix(rel, "objects/") && rel != "objects/"+missing[:2]+"/"+missing[2:]) {
			data, err := os.ReadFile(p)
			gitDir[rel] = string(data)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return gitDir, work
}

// plainGitEnv is the environment of git run by the test itself, as a
// developer's shell would have it: no sandbox, home in dir.
func plainGitEnv(dir string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com"}
}

// under prefixes each path of files with dir.
func under(dir string, files map[string]string) map[string]string {
	out := map[string]string{}
	for rel, data := range files {
		out[filepath.ToSlash(filepath.Join(dir, rel))] = data
	}
	return out
}

// plantFiles writes files under root, hooks executable.
func plantFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, data := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		mode := os.FileMode(0o644)
		if strings.Contains(rel, "hooks/") {
			mode = 0o755
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// gitLayout is one way a workspace can hold a repository of the attacker's.
type gitLayout struct {
	name string
	// files are the workspace's, given where the markers go (the attacker
	// knows the host's paths no better than this, but the test needs them).
	files func(t *testing.T, marks string) map[string]string
	clone bool // the workspace is a clone: a repository of the user's at its root, with a commit
	// stage are files the model stages with write_file (given the
	// workspace's root), plant a command the user allows that runs before.
	stage func(t *testing.T, root, marks string) map[string]string
	plant string
	dir   string // where the git commands run in the workspace ("" for its root)
	// callerEnv is what agent-lsp's own environment adds, given the
	// workspace's root (an editor started from a git hook has GIT_DIR).
	callerEnv func(root string) []string
	// everyLevel: git obeys it at no level, full included
	// (safe.bareRepository, diff.ignoreSubmodules). Elsewhere at full the
	// sandbox is what contains it.
	everyLevel bool
	// submodule is where the clone has a submodule (a gitlink); the
	// control then runs git on the clone's repository with its files as
	// the work tree, as below full.
	submodule string
	shows     []string // what the control must show to have seen the attack (default: textconv)
}

func bareRepo(worktree, dir string) func(*testing.T, string) map[string]string {
	return func(t *testing.T, marks string) map[string]string {
		gitDir, work := attackerRepo(t, marks, worktree)
		return under(dir, mergeFiles(gitDir, work))
	}
}

func mergeFiles(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

var gitLayouts = []gitLayout{
	{name: "a bare repository committed at the root of a clone", files: bareRepo(".", ""), clone: true, everyLevel: true},
	{name: "a bare repository at the root of a workspace that is no clone", files: bareRepo(".", ""), everyLevel: true},
	{name: "a bare repository in a subdirectory", files: bareRepo(".", "sub"), clone: true, dir: "sub", everyLevel: true},
	{name: "a .git directory an archive put in a subdirectory", clone: true, dir: "sub", files: func(t *testing.T, marks string) map[string]string {
		gitDir, work := attackerRepo(t, marks, "")
		return mergeFiles(under("sub", work), under("sub/.git", gitDir))
	}},
	{name: "a .git directory an earlier command made in a subdirectory", clone: true, dir: "sub", plant: "mv sub/dotgit sub/.git",
		files: func(t *testing.T, marks string) map[string]string {
			gitDir, work := attackerRepo(t, marks, "")
			return mergeFiles(under("sub", work), under("sub/dotgit", gitDir))
		}},
	{name: "a .git file in a subdirectory pointing at the attacker's git dir", clone: true, dir: "sub", plant: `printf 'gitdir: ../evil\n' > sub/.git`,
		files: func(t *testing.T, marks string) map[string]string {
			gitDir, work := attackerRepo(t, marks, "")
			return mergeFiles(under("sub", work), under("evil", gitDir), map[string]string{"sub/.git": "gitdir: ../evil\n"})
		}},
	{name: "a .git file at the root pointing at /proc/self/cwd/evil", files: func(t *testing.T, marks string) map[string]string {
		gitDir, work := attackerRepo(t, marks, "")
		return mergeFiles(work, under("evil", gitDir), map[string]string{".git": "gitdir: /proc/self/cwd/evil\n"})
	}},
	{name: "the caller's GIT_DIR and GIT_CONFIG_* naming the attacker's repository",
		files: func(t *testing.T, marks string) map[string]string {
			gitDir, work := attackerRepo(t, marks, "")
			return mergeFiles(work, under("evil", gitDir))
		},
		callerEnv: func(root string) []string {
			return []string{"GIT_DIR=" + filepath.Join(root, "evil"), "GIT_WORK_TREE=" + root, "GIT_CONFIG_COUNT=1",
				"GIT_CONFIG_KEY_0=safe.bareRepository", "GIT_CONFIG_VALUE_0=all", "GIT_CONFIG_PARAMETERS='core.fsmonitor'='touch ./.pwned-caller; false'"}
		}},
	{name: "a .git directory an earlier command made in a submodule's work tree", clone: true, submodule: "sub", everyLevel: true,
		plant: "mv sub/dotgit sub/.git", shows: []string{"filter"},
		files: func(t *testing.T, marks string) map[string]string {
			gitDir, work := attackerRepo(t, marks, "")
			return mergeFiles(under("sub", work), under("sub/dotgit", gitDir))
		}},
	{name: "a bare repository the model staged, text only, borrowing the clone's objects", clone: true, everyLevel: true,
		files: func(*testing.T, string) map[string]string {
			return map[string]string{}
		},
		stage: func(t *testing.T, root, marks string) map[string]string {
			head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
			if err != nil {
				t.Fatal(err)
			}
			return mergeFiles(evilConfig(marks, "."), map[string]string{"HEAD": "ref: refs/heads/main\n", "refs/heads/main": string(head),
				"objects/info/alternates": filepath.Join(root, ".git", "objects") + "\n", ".gitattributes": evilAttributes})
		}},
}

// markers lists the markers under dir: in marks (outside), or .pwned-*
// files anywhere (in the view).
func markers(t *testing.T, dir string, inView bool) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (!inView || strings.HasPrefix(d.Name(), ".pwned-")) {
			found = append(found, strings.TrimPrefix(d.Name(), ".pwned-"))
			if inView {
				os.Remove(p) // the next command's must be its own
			}
		}
		return nil
	})
	slices.Sort(found)
	return slices.Compact(found)
}

// gitWorld is a workspace laid out as l, its git commands run as execute_command.
type gitWorld struct {
	root, marks string
	ws          *Workspace
	reg         *Registry
	approver    *scriptedApprover
}

func newGitWorld(t *testing.T, l gitLayout) *gitWorld {
	t.Helper()
	parent := t.TempDir()
	g := &gitWorld{root: filepath.Join(parent, "ws"), marks: filepath.Join(t.TempDir(), "marks"), approver: &scriptedApprover{decision: AllowOnce}}
	os.MkdirAll(g.marks, 0o755)
	files := l.files(t, g.marks)
	if l.clone {
		files["README"] = "the user's\n"
	}
	plantFiles(t, g.root, files)
	if l.clone {
		steps := [][]string{{"init", "-q", "-b", "main"}, {"add", "README"}, {"commit", "-q", "-m", "mine"}}
		if l.submodule != "" {
			steps = append(steps, []string{"update-index", "--add", "--cacheinfo", "160000,0123456789012345678901234567890123456789," + l.submodule},
				[]string{"commit", "-q", "-m", "a submodule"})
		}
		for _, args := range steps {
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = g.root, plainGitEnv(parent)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
	}
	// A second root, so that commands take cwd and run in a subdirectory
	// unasked, as a model's would.
	other := filepath.Join(parent, "other")
	os.Mkdir(other, 0o755)
	w, err := NewWorkspaceRoots([]Root{{Dir: g.root, Name: "ws"}, {Dir: other, Name: "other"}}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := os.Environ()
	if l.callerEnv != nil {
		env = append(env, l.callerEnv(g.root)...)
	}
	w.SetSandbox(SandboxOptions{Cache: filepath.Join(sandboxTestDir(), "shared-cache"), Env: env})
	t.Cleanup(func() { w.Close() })
	g.ws = w
	g.reg = NewDefaultRegistry(w, NewPolicy(DefaultAllowlist), g.approver, CommandLimits{Timeout: time.Minute})
	return g
}

func (g *gitWorld) run(t *testing.T, command, dir string) string {
	t.Helper()
	return call(t, g.reg, "execute_command", map[string]any{"command": command, "cwd": filepath.ToSlash(filepath.Join("ws", dir))}).Text
}

// TestHostileGitObeysNoRepositoryOfTheWorkspace: wherever the workspace
// holds a repository of the attacker's — a bare one at the root or in a
// subdirectory, committed or staged; a .git directory or file an archive or
// an earlier command put in a subdirectory; a .git file at the root — the
// allowlisted git commands run without asking and none of its programs
// runs outside the sandbox: not on the host (level none), not in the view
// below full, and for a bare repository not even at full. The control runs
// the same git without the sandbox's environment on the same files, and
// its programs run.
func TestHostileGitObeysNoRepositoryOfTheWorkspace(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	level := sandbox.Probe().Level
	for _, l := range gitLayouts {
		t.Run(l.name, func(t *testing.T) {
			g := newGitWorld(t, l)
			if l.stage != nil {
				for rel, content := range l.stage(t, g.root, g.marks) {
					if res := call(t, g.reg, "write_file", map[string]any{"path": "ws/" + rel, "content": content}); res.IsError {
						t.Fatalf("staging %s: %s", rel, res.Text)
					}
				}
			}
			if l.plant != "" {
				if out := g.run(t, l.plant, ""); strings.Contains(out, "exit code") {
					t.Logf("the plant: %s", out)
				}
			}
			for _, command := range gitReadCommands {
				asked := len(g.approver.asked)
				out := g.run(t, command, l.dir)
				if len(g.approver.asked) != asked {
					t.Errorf("%s asked: %v", command, g.approver.asked[asked:])
				}
				if m := markers(t, g.marks, false); len(m) > 0 {
					t.Errorf("%s ran the workspace's %v outside the sandbox:\n%s", command, m, out)
					os.RemoveAll(g.marks)
					os.MkdirAll(g.marks, 0o755)
				}
				var m []string
				inViewDir(t, g.ws, func(dir string) { m = markers(t, dir, true) })
				if len(m) > 0 && (level != sandbox.Full || l.everyLevel) {
					t.Errorf("%s at level %s ran the workspace's %v:\n%s", command, level, m, out)
				}
			}
			// The control: the same files as the view holds them, the same
			// git without the sandbox's environment.
			control := filepath.Join(t.TempDir(), "ws")
			ran := gitControl(t, l, control, g.root)
			t.Logf("control: %v", ran)
			shows := l.shows
			if shows == nil {
				shows = []string{"textconv"}
			}
			for _, want := range shows {
				if !slices.Contains(ran, want) {
					t.Errorf("control: git without the sandbox's environment ran %v of the layout's programs, not %s: the test is blind", ran, want)
				}
			}
		})
	}
}

// gitControl lays out what the view of l holds in dir — the workspace's
// files (its repository's objects borrowed from root), the staged ones,
// the plant — with markers of its own, runs gitReadCommands there with
// plain git, and returns the markers they made.
func gitControl(t *testing.T, l gitLayout, dir, root string) []string {
	t.Helper()
	marks := filepath.Join(t.TempDir(), "marks")
	os.MkdirAll(marks, 0o755)
	files := l.files(t, marks)
	if l.stage != nil {
		files = mergeFiles(files, l.stage(t, root, marks))
	}
	plantFiles(t, dir, files)
	if l.plant != "" {
		cmd := exec.Command("bash", "-c", l.plant)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("control's plant: %v %s", err, out)
		}
	}
	for _, command := range gitReadCommands {
		cmd := exec.Command("bash", "-c", command)
		cmd.Dir, cmd.Env = filepath.Join(dir, l.dir), plainGitEnv(t.TempDir())
		if l.callerEnv != nil {
			cmd.Env = append(cmd.Env, l.callerEnv(dir)...)
		}
		if l.submodule != "" {
			cmd.Env = append(cmd.Env, "GIT_DIR="+filepath.Join(root, ".git"), "GIT_WORK_TREE="+dir)
		}
		cmd.CombinedOutput()
	}
	return markers(t, marks, false)
}
