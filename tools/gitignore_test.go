package tools

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ignoreCorpus is a repository whose every file is judged twice: by
// list_files and by git. Each directory holds one concern, with its own
// .gitignore; the root holds what needs the root (anchoring, info/exclude,
// the user's excludes file).
var ignoreCorpus = map[string]string{
	".gitignore": strings.Join([]string{
		"/anchored", "mid/anchored", "*.tmp", "*.i", "!keep.g", "# a comment", "",
		"nested-dir-only/", "!*.ok",
	}, "\n") + "\n",
	".git/info/exclude":   "by-info\n*.i\n!rescued.i\n",
	"config/git/ignore":   "by-global\n*.g\n!*.i\n", // under XDG_CONFIG_HOME, outside the root
	"classes/.gitignore":  classPatterns,
	"unclosed/.gitignore": "r[ab\ns[\nt[[:alpha:]\nu[[:nope:]]\nv[!\nw\\\n",
	"escapes/.gitignore": "\\#hash\n\\!bang\ntrail\\ \ntwo\\  \nspaces   \ntab\t\n#comment\nstar\\*\n" +
		"q\\?\nbs\\\\x\n\\ lead\n*nn\n!!nn\nsp /\n",
	"stars/.gitignore": "**/lead\nmid/**/end\ntrail/**\n!trail/keep\ndeep/**/x/y\na**b\n**/d1/**/d2\n" +
		"/**/anchlead\nin/**/\n*/one/*\n",
	"dirs/.gitignore":      "build/\nout/\n!out/keep\nsub/cache/\n",
	"negate/.gitignore":    "*.log\n!keep.log\nlogs/\n!logs/important.log\n*.txt\n!important\n*.dat\n!keep/dir\n",
	"negate/wl/.gitignore": "*\n!*/\n!*.go\n!.gitignore\n",
	"nested/.gitignore":    "!*.tmp\nlocal\n",
	"nested/m/.gitignore":  "a.tmp\n!local\n",
	"crlf/.gitignore":      "\ufeffbom\r\ncr\r\nlf\n",
	// A directory's patterns hold in its subtree only: not in a sibling
	// (b, a2, whose name starts like a's), nor after the walk left it
	// (after.log); a deeper file overrides a shallower one both ways.
	"stack/a/.gitignore":             "*.log\n!keep.log\nbuild/\n",
	"stack/a/deep/.gitignore":        "!*.log\nkeep.log\n!build/\n",
	"stack/a/deep/deeper/.gitignore": "x.log\n",
	"stack/a/other/.gitignore":       "!/only-here.log\n",
	"stack/.gitignore":               "a/deep/deeper/z.log\n",
}

const classPatterns = "f[abc]\ng[a-c]\nh[!a]\ni[^a]\nj[]]\nk[a-]\nl[[:digit:]]\nm[[:upper:][:punct:]]\n" +
	"n[]a]\no[!]]\np[\\]]\nq[--0]\ns[[:]\nw?\nx[-a]\ny[a-c-e]\nz[[:space:]x]\nc[é]\nd[!é]\ne[a-é]\n"

// classSuffixes follow each letter of classPatterns in the corpus's file names.
var classSuffixes = []string{"a", "b", "c", "d", "e", "]", "-", "!", "^", "0", "5", "A", ".", ":", "[", "\\", " ", "x", "é", "\xe9"}

func ignoreCorpusFiles() map[string]string {
	files := map[string]string{}
	for k, v := range ignoreCorpus {
		files[k] = v
	}
	add := func(dir string, names ...string) {
		for _, n := range names {
			files[filepath.Join(dir, n)] = "x"
		}
	}
	for _, p := range "cdefghijklmnopqswxyz" {
		for _, s := range classSuffixes {
			add("classes", string(p)+s)
		}
	}
	add("unclosed", "r[ab", "ra", "s[", "t[", "ta", "ua", "u[[:nope:]]", "v[!", "v", "w\\", "w")
	add("escapes", "#hash", "!bang", "trail ", "trail", "two ", "two", "two  ", "spaces", "spaces ",
		"tab\t", "tab", "#comment", "star*", "starx", "q?", "qx", "bs\\x", "bsx", " lead", "lead",
		"xnn", "nn", "!nn", "sp /f", "sp/f")
	add("stars", "lead", "x/lead", "x/y/lead", "mid/end", "mid/q/end", "mid/q/r/end", "midx/end", "x/mid/end",
		"trail/f", "trail/g/h", "trail/keep", "trailx/f", "deep/x/y", "deep/x/x/y", "deep/q/x/y", "deep/q/q/x/y",
		"ab", "axxb", "a/b", "d1/d2", "d1/q/d2", "q/d1/r/d2", "d2/d1", "anchlead", "q/anchlead",
		"in/f", "in/q/f", "two/one/f", "one/f", "q/two/one/f", "two/one/g/h")
	add("dirs", "build/x", "sub/build/y", "other/build", "out/keep", "out/x", "sub/cache/z", "cache/z")
	add("negate", "a.log", "keep.log", "logs/important.log", "logs/x.log", "important/a.txt",
		"important/b", "b.txt", "keep/dir/a.dat", "keep/dir/b", "keep/c.dat",
		"wl/main.go", "wl/notes.txt", "wl/src/lib.go", "wl/src/data.bin", "wl/src/deep/x.go")
	add("nested", "a.tmp", "b.tmp", "local", "m/a.tmp", "m/b.tmp", "m/local", "m/n/local")
	add("crlf", "bom", "\ufeffbom", "cr", "cr\r", "lf")
	add("stack", "a/x.log", "a/keep.log", "a/z.txt", "a/build/f", "a/deep/x.log", "a/deep/keep.log",
		"a/deep/build/f", "a/deep/deeper/x.log", "a/deep/deeper/y.log", "a/deep/deeper/z.log",
		"a/deep/deeper/keep.log", "a/other/only-here.log", "a/other/sub/only-here.log", "a/other/x.log",
		"a2/x.log", "a2/keep.log", "b/x.log", "b/build/f", "after.log")
	add("", "anchored", "x/anchored", "mid/anchored", "x/mid/anchored", "by-info", "x/by-info",
		"by-global", "x/by-global", "a.tmp", "x.g", "keep.g", "y.i", "rescued.i", "nested-dir-only/f", "a.ok")
	return files
}

// knownDisagreements are files where the tools and git differ, each with why.
var knownDisagreements = map[string]string{
	// git's wildmatch compares bytes, path.Match runes: the tools make "?"
	// and classes match ASCII only, which agrees with git on UTF-8 names,
	// but then a name that is not UTF-8 (\xe9 is "é" in Latin-1) is one
	// byte git's "?" or negated class matches and the tools do not.
	"classes/h\xe9": latin1, "classes/i\xe9": latin1, "classes/o\xe9": latin1,
	"classes/w\xe9": latin1, "classes/d\xe9": latin1,
}

const latin1 = "a byte that is not UTF-8"

// TestIgnoreAgreesWithGit lists the corpus through list_files (the walk
// search and the sandbox's copy use too) and compares every file with git's
// own decision (`git ls-files --others --exclude-standard`).
func TestIgnoreAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH: nothing to compare with")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	root := filepath.Join(home, "repo")
	git(t, home, "init", "-q", root)
	files := ignoreCorpusFiles()
	for name, content := range files {
		dir := root
		if strings.HasPrefix(name, "config/") {
			dir = home
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	out := git(t, root, "ls-files", "-z", "--others", "--exclude-standard")
	gitSees := map[string]bool{}
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			gitSees[string(f)] = true
		}
	}
	weSee := map[string]bool{}
	for _, e := range listFiles(t, root, 100) {
		if !strings.HasSuffix(e, "/") {
			weSee[e] = true
		}
	}
	var all []string
	for name := range files {
		if !strings.HasPrefix(name, "config/") && !strings.HasPrefix(name, ".git/") {
			all = append(all, filepath.ToSlash(name))
		}
	}
	slices.Sort(all)
	for _, f := range all {
		if weSee[f] == gitSees[f] {
			if why, ok := knownDisagreements[f]; ok {
				t.Errorf("%q: listed as a disagreement (%s) but agrees with git now", f, why)
			}
			continue
		}
		if _, ok := knownDisagreements[f]; ok {
			continue
		}
		t.Errorf("%q: list_files shows it: %v, git: %v", f, weSee[f], gitSees[f])
	}
	if len(gitSees) < 50 || len(weSee) < 50 {
		t.Fatalf("too few files seen (git %d, list_files %d): the corpus did not build", len(gitSees), len(weSee))
	}
}

func git(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return out
}

// The user's core.excludesFile (here from $GIT_CONFIG_GLOBAL, with ~) is
// honoured; the one a repository's own .git/config names is not: the
// workspace does not choose what the user's config says.
func TestUserExcludesFileComesFromTheUsersConfigOnly(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "global.gitconfig"))
	root := filepath.Join(home, "repo")
	writeTree(t, home, map[string]string{
		"global.gitconfig":   "[core]\n\texcludesFile = ~/my-ignore\n",
		"my-ignore":          "from-global\n",
		".config/git/ignore": "from-default-location\n", // replaced by excludesFile
		"repo-ignore":        "from-repo\n",
	})
	writeTree(t, root, map[string]string{
		".git/config": "[core]\n\texcludesFile = " + filepath.Join(home, "repo-ignore") + "\n",
		"from-global": "x", "from-repo": "x", "from-default-location": "x",
	})
	got := listFiles(t, root, 0)
	if want := []string{"from-default-location", "from-repo"}; !slices.Equal(got, want) {
		t.Fatalf("list_files: %q, want %q", got, want)
	}
}

// listFiles runs the list_files tool alone: a whole registry would probe the
// sandbox, which runs the go command under the test's temporary HOME.
func listFiles(t *testing.T, root string, depth int) []string {
	t.Helper()
	w, err := NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := NewListFiles(w).Execute(context.Background(), []byte(fmt.Sprintf(`{"depth": %d}`, depth)))
	if err != nil || res.IsError {
		t.Fatalf("list_files: %v %s", err, res.Text)
	}
	return res.Data.([]string)
}

// A linked worktree's .git is a file pointing at its git dir: its index is
// there, and info/exclude in the main repository's.
func TestLinkedWorktreeFindsItsIndexAndExclude(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH: nothing to compare with")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	main, wt := filepath.Join(home, "main"), filepath.Join(home, "wt")
	writeTree(t, main, map[string]string{".gitignore": "*.gen\n", "vendored.gen": "tracked though ignored"})
	git(t, main, "init", "-q")
	git(t, main, "add", "-f", ".gitignore", "vendored.gen")
	git(t, main, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "x")
	git(t, main, "worktree", "add", "-q", wt)
	writeTree(t, main, map[string]string{".git/info/exclude": "by-info\n"})
	writeTree(t, wt, map[string]string{"by-info": "x", "other": "x", "local.gen": "x"})

	if got, want := listFiles(t, wt, 0), []string{".gitignore", "other"}; !slices.Equal(got, want) {
		t.Errorf("list_files in the worktree: %q, want %q", got, want)
	}
	if out := string(git(t, wt, "ls-files", "--others", "--exclude-standard")); out != "other\n" {
		t.Errorf("git sees %q untracked", out)
	}
	w, _ := NewWorkspace(wt, nil)
	sb, err := NewSandbox(context.Background(), w, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for name, want := range map[string]bool{"vendored.gen": true, "other": true, "by-info": false, "local.gen": false} {
		if _, err := os.Stat(filepath.Join(sb.Dir, name)); (err == nil) != want {
			t.Errorf("%s in the copy: %v, want %v", name, err == nil, want)
		}
	}
}

// An ignore file is read up to maxIgnoreFileBytes, and the patterns in
// force weigh at most maxIgnoreInForce: past that, patterns are dropped
// (so more is shown) and the tools say which files were cut. Leaving a
// directory frees what its patterns weighed.
func TestIgnoreFilesAreReadWithACap(t *testing.T) {
	root := t.TempDir()
	var comments, patterns strings.Builder
	for comments.Len() <= maxIgnoreFileBytes {
		comments.WriteString("# a comment line, read and skipped\n")
	}
	for i := range 43_000 { // 1,032,000 bytes, under the file's cap; with their overhead, three are over the cap in force
		fmt.Fprintf(&patterns, "p-%07d-abcdefghijklm\n", i)
	}
	writeTree(t, root, map[string]string{
		".gitignore":         "first.txt\n" + comments.String() + "last.txt\n",
		"first.txt":          "x",
		"last.txt":           "x",
		"a/.gitignore":       patterns.String(),
		"a/b/.gitignore":     patterns.String(),
		"a/b/c/.gitignore":   "kept.txt\n" + patterns.String() + "cut.txt\n",
		"a/b/c/d/.gitignore": "gone.txt\n",
		"a/b/c/kept.txt":     "x",
		"a/b/c/cut.txt":      "x",
		"a/b/c/d/gone.txt":   "x",
		"z/.gitignore":       "zz.txt\n",
		"z/zz.txt":           "x",
	})
	w, err := NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, registryOf(t, NewListFiles(w)), "list_files", map[string]any{"depth": 10})
	var files []string
	for _, e := range res.Data.([]string) {
		if !strings.HasSuffix(e, "/") && !strings.HasSuffix(e, ".gitignore") {
			files = append(files, e)
		}
	}
	if want := []string{"a/b/c/cut.txt", "a/b/c/d/gone.txt", "last.txt"}; !slices.Equal(files, want) {
		t.Errorf("files listed: %q, want %q", files, want)
	}
	note := "(3 ignore files cut (over 1.0 MiB, or past what the patterns in force may weigh): .gitignore, a/b/c/.gitignore, a/b/c/d/.gitignore; their later patterns were not applied, so some ignored files may be shown)\n"
	if !strings.HasSuffix(res.Text, note) {
		t.Errorf("list_files does not end with the note %q:\n%s", note, res.Text[max(len(res.Text)-600, 0):])
	}
}

// registryOf is a registry of the given tools alone.
func registryOf(t *testing.T, tools ...Tool) *Registry {
	t.Helper()
	r, err := NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
