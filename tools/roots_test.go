package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestRootName(t *testing.T) {
	for _, c := range []struct {
		dir   string
		taken []string
		want  string
	}{
		{"/src/api", nil, "api"},
		{"/src/api/", nil, "api"},
		{"/other/api", []string{"api"}, "api~2"},
		{"/third/api", []string{"api", "api~2"}, "api~3"},
		{"/x/API", []string{"api"}, "API~2"}, // names tell roots apart on case-blind volumes too
		{"/", nil, "root"},
		{"/", []string{"root"}, "root~2"},
	} {
		if got := RootName(c.dir, c.taken); got != c.want {
			t.Errorf("RootName(%q, %q) = %q, want %q", c.dir, c.taken, got, c.want)
		}
	}
}

// twoRoots makes sibling folders api and web under one parent (so ".."
// from one reaches the other), and a folder beside them that is no root.
func twoRoots(t *testing.T) (parent string, w *Workspace) {
	t.Helper()
	parent = toolstest.WriteTree(t, map[string]string{
		"api/src/main.go":   "package main // api\n",
		"api/marker.txt":    "api root\n",
		"web/src/app.ts":    "export const app = 'web'\n",
		"web/marker.txt":    "web root\n",
		"web/sub/inner.txt": "inside web/sub\n",
		"other/secret.txt":  "not a root\n",
	})
	w, err := NewWorkspaceRoots([]Root{{Dir: filepath.Join(parent, "api")}, {Dir: filepath.Join(parent, "web")}}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return parent, w
}

func TestRootsPathScheme(t *testing.T) {
	parent, w := twoRoots(t)
	if err := os.Symlink(filepath.Join(parent, "web", "src"), filepath.Join(parent, "api", "to-web")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(parent, "other"), filepath.Join(parent, "api", "to-other")); err != nil {
		t.Fatal(err)
	}
	if got := w.Roots(); len(got) != 2 || got[0].Name != "api" || got[1].Name != "web" || w.Current().Name != "api" {
		t.Fatalf("roots %+v, current %+v", got, w.Current())
	}
	for p, want := range map[string]string{
		"api/src/main.go":    "api/src/main.go",
		"./web/src/app.ts":   "web/src/app.ts",
		"API/src/main.go":    "api/src/main.go", // a root's name in another case
		"api":                "api",
		"web/new/file.txt":   "web/new/file.txt",
		"api/../web/app":     "web/app", // ".." on disk from api's folder: its sibling web, a root
		"api/to-web/app.ts":  "web/src/app.ts",
		"api/to-web/../x.go": "api/x.go", // the link's "..", resolved lexically as for one root
		filepath.Join(parent, "web", "src", "app.ts"): "web/src/app.ts",
	} {
		abs, rel, err := w.Resolve(p)
		if err != nil || rel != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", p, rel, err, want)
			continue
		}
		if wantAbs := w.absOf(want); abs != wantAbs {
			t.Errorf("Resolve(%q) abs = %q, want %q", p, abs, wantAbs)
		}
	}
	for _, p := range []string{
		"api/../other/secret.txt", "api/../../x", "api/to-other/secret.txt",
		filepath.Join(parent, "other", "secret.txt"), "/etc/passwd",
	} {
		_, _, err := w.Resolve(p)
		if !errors.Is(err, ErrOutsideWorkspace) || !strings.Contains(err.Error(), "api/ ("+filepath.Join(parent, "api")+")") {
			t.Errorf("Resolve(%q) = %v; want ErrOutsideWorkspace naming the roots", p, err)
		}
	}
	for _, p := range []string{"src/main.go", "../api/src/main.go", "other/secret.txt"} {
		_, _, err := w.Resolve(p)
		if !errors.Is(err, ErrUnknownRoot) || !strings.Contains(err.Error(), "web/ (") {
			t.Errorf("Resolve(%q) = %v; want ErrUnknownRoot naming the roots", p, err)
		}
	}
	if _, _, err := w.Resolve("."); err == nil || !strings.Contains(err.Error(), "top of the workspace") {
		t.Errorf(`Resolve(".") = %v; want the top refused`, err)
	}
}

func TestRootsStageAndReadInEveryRoot(t *testing.T) {
	parent, w := twoRoots(t)
	if _, err := w.Stage("web/src/app.ts", "export const app = 'staged'\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Stage(filepath.Join(parent, "api", "new.go"), "package main\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Stage("web/.git/config", "x"); !errors.Is(err, ErrGitDir) {
		t.Errorf("a root's .git: %v", err)
	}
	f, err := w.Read("WEB/src/app.ts")
	if err != nil || f.Source != FromStaged || f.Path != "web/src/app.ts" {
		t.Errorf("read of a staged file in another spelling: %+v %v", f, err)
	}
	changes := w.Changes()
	if len(changes) != 2 || changes[0].Path != "api/new.go" || changes[0].AbsPath != filepath.Join(parent, "api", "new.go") ||
		changes[1].Path != "web/src/app.ts" || changes[1].AbsPath != filepath.Join(parent, "web", "src", "app.ts") {
		t.Errorf("changes: %+v", changes)
	}
	if d := w.Proposal().Diff(); !strings.Contains(d, "+++ b/web/src/app.ts") || !strings.Contains(d, "+++ b/api/new.go") {
		t.Errorf("diff names files without their root:\n%s", d)
	}
	w.Restore(changes)
	if _, err := w.Stage("web/src/app.ts", "again\n"); err != nil || len(w.Changes()) != 2 {
		t.Errorf("after Restore: %+v %v", w.Changes(), err)
	}
}

func TestRootsListAndSearchCoverEveryRoot(t *testing.T) {
	_, w := twoRoots(t)
	r := NewDefaultRegistry(w, NewPolicy(DefaultAllowlist), nil, CommandLimits{})
	if _, err := w.Stage("web/src/staged.ts", "const app = 'staged'\n"); err != nil {
		t.Fatal(err)
	}
	res := call(t, r, "list_files", map[string]any{})
	for _, want := range []string{"api/\n", "api/src/main.go\n", "web/\n", "web/sub/inner.txt\n", "web/src/staged.ts (new, staged)\n"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("list_files at the top lacks %q:\n%s", want, res.Text)
		}
	}
	// Staged files are listed whatever the depth, as with one root.
	if res := call(t, r, "list_files", map[string]any{"depth": 1}); res.Text != "api/\nweb/\nweb/src/staged.ts (new, staged)\n" {
		t.Errorf("list_files depth 1: %q", res.Text)
	}
	if res := call(t, r, "list_files", map[string]any{"path": "web"}); strings.Contains(res.Text, "api/") || !strings.Contains(res.Text, "web/src/app.ts") {
		t.Errorf("list_files web:\n%s", res.Text)
	}
	res = call(t, r, "search", map[string]any{"pattern": "app|api"})
	for _, want := range []string{"api/src/main.go:1:", "web/src/app.ts:1:", "web/src/staged.ts:1:"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("search at the top lacks %q:\n%s", want, res.Text)
		}
	}
	if res := call(t, r, "search", map[string]any{"pattern": "app", "path": "web", "glob": "web/src/*.ts"}); strings.Contains(res.Text, "api/") || !strings.Contains(res.Text, "web/src/app.ts:1:") {
		t.Errorf("search in web:\n%s", res.Text)
	}
	if res := call(t, r, "read_file", map[string]any{"path": "src/main.go"}); !res.IsError || !strings.Contains(res.Text, "names no root") || !strings.Contains(res.Text, "api/ (") {
		t.Errorf("a path without its root: %+v", res)
	}
	for _, tool := range r.Tools() {
		if !strings.Contains(tool.Description(), "several roots") {
			t.Errorf("%s does not state the path scheme: %s", tool.Name(), tool.Description())
		}
	}
}

// TestRootsNested: a file in a root nested in another belongs to the
// inner one, under one name, and a walk of the outer leaves it to it.
func TestRootsNested(t *testing.T) {
	parent := toolstest.WriteTree(t, map[string]string{"repo/top.go": "package top\n", "repo/pkg/api/x.go": "package api\n"})
	w, err := NewWorkspaceRoots([]Root{{Dir: filepath.Join(parent, "repo")}, {Dir: filepath.Join(parent, "repo", "pkg", "api")}}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, rel, err := w.Resolve("repo/pkg/api/x.go"); err != nil || rel != "api/x.go" {
		t.Errorf("nested file: %q %v", rel, err)
	}
	r := NewDefaultRegistry(w, NewPolicy(DefaultAllowlist), nil, CommandLimits{})
	res := call(t, r, "search", map[string]any{"pattern": "package"})
	if strings.Count(res.Text, "x.go") != 1 || !strings.Contains(res.Text, "api/x.go:1:") {
		t.Errorf("a nested root's file is found once, by its inner name:\n%s", res.Text)
	}
}

func TestRootsConstruction(t *testing.T) {
	parent := toolstest.WriteTree(t, map[string]string{"a/api/x": "1", "b/api/y": "2", "c/x": "3"})
	a, b := filepath.Join(parent, "a", "api"), filepath.Join(parent, "b", "api")
	if err := os.Symlink(a, filepath.Join(parent, "alias")); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorkspaceRoots([]Root{{Dir: a}, {Dir: b}, {Dir: filepath.Join(parent, "alias")}}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, r := range w.Roots() {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"api", "api~2"}) || w.Current().Dir != a {
		t.Errorf("roots %q (a link to the first is the first), current %+v", names, w.Current())
	}
	if _, rel, err := w.Resolve("api~2/y"); err != nil || rel != "api~2/y" {
		t.Errorf("the second api: %q %v", rel, err)
	}
	for _, roots := range [][]Root{
		{{Name: "x", Dir: a}, {Name: "X", Dir: b}},
		{{Name: "a/b", Dir: a}},
		{{Name: "..", Dir: a}},
		{{Dir: filepath.Join(parent, "missing")}},
	} {
		if _, err := NewWorkspaceRoots(roots, 0, nil); err == nil {
			t.Errorf("NewWorkspaceRoots(%+v) accepted", roots)
		}
	}
}

// TestRootsSchemaAndPolicy: with several roots execute_command takes cwd;
// reading another root is no read outside the workspace.
func TestRootsSchemaAndPolicy(t *testing.T) {
	parent, w := twoRoots(t)
	tool := NewExecuteCommand(w, NewPolicy(DefaultAllowlist), nil, CommandLimits{})
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(tool.Schema(), &s); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Properties["cwd"]; !ok || len(s.Properties) != 3 {
		t.Errorf("schema with several roots: %s", tool.Schema())
	}
	p := NewPolicy(DefaultAllowlist)
	dir := filepath.Join(parent, "api")
	roots := []string{dir, filepath.Join(parent, "web")}
	if reasons, _, _ := p.CheckIn("cat ../web/marker.txt "+filepath.Join(parent, "web", "src", "app.ts"), dir, roots); len(reasons) != 0 {
		t.Errorf("reading another root asks: %q", reasons)
	}
	if reasons, _, _ := p.CheckIn("cat ../other/secret.txt", dir, roots); len(reasons) != 1 {
		t.Errorf("reading outside the roots: %q", reasons)
	}
	if reasons, _, _ := p.CheckIn("cat marker.txt", filepath.Join(parent, "web", "sub"), roots); len(reasons) != 0 {
		t.Errorf("a relative read from a root's subdirectory: %q", reasons)
	}
}

func TestRootsCommandsRunInTheirRoot(t *testing.T) {
	parent, w := twoRoots(t)
	before := snapshot(t, parent)
	w.SetSandbox(SandboxOptions{Cache: filepath.Join(sandboxTestDir(), "shared-cache")})
	r, err := NewRegistry(NewExecuteCommand(w, NewPolicy(DefaultAllowlist), nil, CommandLimits{}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Stage("web/marker.txt", "web staged\n"); err != nil {
		t.Fatal(err)
	}
	for cwd, want := range map[string]string{
		"":                           "api root\n",
		"web":                        "web staged\n",
		filepath.Join(parent, "web"): "web staged\n",
		"api":                        "api root\n",
	} {
		res := call(t, r, "execute_command", map[string]any{"command": "cat marker.txt", "cwd": cwd})
		if res.IsError || !strings.HasPrefix(res.Text, want) {
			t.Errorf("cwd %q: %s", cwd, res.Text)
		}
	}
	if res := call(t, r, "execute_command", map[string]any{"command": "cat inner.txt", "cwd": "web/sub"}); !strings.HasPrefix(res.Text, "inside web/sub\n") {
		t.Errorf("cwd web/sub: %s", res.Text)
	}
	for cwd, want := range map[string]string{
		"nope":             "names no root",
		"web/marker.txt":   "not a directory",
		"api/../other":     "outside the workspace",
		"/etc":             "outside the workspace",
		"web/missing/deep": "not a directory",
	} {
		if res := call(t, r, "execute_command", map[string]any{"command": "true", "cwd": cwd}); !res.IsError || !strings.Contains(res.Text, want) {
			t.Errorf("cwd %q: %+v, want %q", cwd, res, want)
		}
	}
	if !reflect.DeepEqual(before, snapshot(t, parent)) {
		t.Fatal("the user's files changed")
	}
}

// TestRootsCopyViewAndBuffers: a root's copy (the view below the full
// sandbox) holds that root's files with the changes in it, by their paths
// in it; an unsaved buffer is in the view of its root only.
func TestRootsCopyViewAndBuffers(t *testing.T) {
	parent := toolstest.WriteTree(t, map[string]string{"api/marker.txt": "api\n", "web/marker.txt": "web\n", "web/b.txt": "on disk\n"})
	overlay := mapOverlay{}
	overlay[filepath.Join(parent, "web", "b.txt")] = struct {
		text    string
		version int32
	}{"unsaved\n", 2}
	w, err := NewWorkspaceRoots([]Root{{Dir: filepath.Join(parent, "api")}, {Dir: filepath.Join(parent, "web")}}, 0, overlay)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if _, err := w.Stage("web/marker.txt", "web staged\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Stage("api/marker.txt", "api staged\n"); err != nil {
		t.Fatal(err)
	}
	web := w.folders[1]
	sb, err := newSandbox(context.Background(), w.Tree, web, web.inView(w.Changes()))
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for rel, want := range map[string]string{"marker.txt": "web staged\n", "b.txt": "on disk\n"} {
		if data, err := os.ReadFile(filepath.Join(sb.Dir, rel)); err != nil || string(data) != want {
			t.Errorf("web's copy %s = %q %v, want %q", rel, data, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(sb.Dir, "api")); err == nil {
		t.Error("web's copy holds another root")
	}
	w.SetSandbox(SandboxOptions{Cache: filepath.Join(sandboxTestDir(), "shared-cache")})
	out, err := w.runCommandIn(context.Background(), web, ".", "cat marker.txt b.txt", time.Minute, 10_000, true)
	if err != nil || !strings.HasPrefix(out.Text(), "web staged\nunsaved\n") || !slices.Equal(out.Unsaved, []string{"web/b.txt"}) {
		t.Errorf("a command in web: %q %v %v", out.Text(), out.Unsaved, err)
	}
	out, err = w.RunCommand(context.Background(), "cat marker.txt", time.Minute, 10_000)
	if err != nil || !strings.HasPrefix(out.Text(), "api staged\n") || len(out.Unsaved) != 0 {
		t.Errorf("a command in api: %q %v %v", out.Text(), out.Unsaved, err)
	}
}

// TestRootsWindowsSeparators: on Windows a model may separate the root's
// name with "\" as well (the rules of each system are tested everywhere).
func TestRootsWindowsSeparators(t *testing.T) {
	_, w := twoRoots(t)
	for _, f := range w.folders {
		f.paths = pathStyle{windows: true, foldCase: true}
	}
	f, rest, err := w.base(`.\WEB\src\app.ts`)
	if err != nil || f.name != "web" || rest != "src/app.ts" {
		t.Errorf(`base(.\WEB\src\app.ts) = %v %q %v`, f, rest, err)
	}
	if _, _, err := w.base(`src\app.ts`); !errors.Is(err, ErrUnknownRoot) {
		t.Errorf(`base(src\app.ts) = %v`, err)
	}
}
