package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// Each part of a Workspace works alone, made from only the parts it needs:
// what a part does is tested without the others' methods in reach.

// apiAndWeb makes the roots api and web, the second with a link out of both.
func apiAndWeb(t *testing.T) (*RootSet, string, string) {
	t.Helper()
	api, web, outside := t.TempDir(), t.TempDir(), t.TempDir()
	writeTree(t, api, map[string]string{"main.go": "package main\n"})
	writeTree(t, web, map[string]string{"app.ts": "app\n"})
	writeTree(t, outside, map[string]string{"secret.txt": "s3cret\n"})
	if err := os.Symlink(outside, filepath.Join(web, "out")); err != nil {
		t.Fatal(err)
	}
	rs, err := newRootSet([]Root{{Name: "api", Dir: api}, {Name: "web", Dir: web}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return rs, rs.folders[0].root, rs.folders[1].root
}

func TestRootSetAlone(t *testing.T) {
	rs, api, web := apiAndWeb(t)
	if got := rs.Current(); got.Name != "web" || got.Dir != web || rs.Root() != web {
		t.Errorf("current root %+v (Root %s), want web at %s", got, rs.Root(), web)
	}
	if got := rs.Roots(); len(got) != 2 || got[0] != (Root{Name: "api", Dir: api}) {
		t.Errorf("roots %+v", got)
	}
	for p, want := range map[string][2]string{
		"api/main.go":                {filepath.Join(api, "main.go"), "api/main.go"},
		"WEB/app.ts":                 {filepath.Join(web, "app.ts"), "web/app.ts"},
		filepath.Join(web, "new.ts"): {filepath.Join(web, "new.ts"), "web/new.ts"},
	} {
		if abs, rel, err := rs.Resolve(p); err != nil || abs != want[0] || rel != want[1] {
			t.Errorf("Resolve(%q) = %s, %s, %v; want %s, %s", p, abs, rel, err, want[0], want[1])
		}
	}
	for _, p := range []string{"web/out/secret.txt", "web/out/new.txt", "api/../../x", "/etc/passwd"} {
		if _, _, err := rs.Resolve(p); !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("Resolve(%q) = %v, want ErrOutsideWorkspace", p, err)
		}
	}
	if _, _, err := rs.Resolve("docs/x"); !errors.Is(err, ErrUnknownRoot) {
		t.Errorf("a path in no root's name: %v, want ErrUnknownRoot", err)
	}
}

func TestChangesetAlone(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "disk\n", "b.txt": "b\n"})
	rs, err := newRootSet([]Root{{Dir: root}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	buffer := filepath.Join(rs.Root(), "a.txt")
	cs := newChangeset(rs, mapOverlay{buffer: {text: "buffer\n", version: 3}})
	if _, err := cs.Stage("a.txt", "one\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Stage("a.txt", "two\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Stage("new/c.txt", "c\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Stage("b.txt", "b\n"); err != nil { // as it was: no change
		t.Fatal(err)
	}
	changes := cs.Changes()
	if len(changes) != 2 || changes[0].Path != "a.txt" || changes[1].Path != "new/c.txt" {
		t.Fatalf("changes %+v, want a.txt and new/c.txt", changes)
	}
	if a := changes[0]; a.Original != "buffer\n" || !a.HasVersion || a.Version != 3 || a.New != "two\n" || !a.Existed {
		t.Errorf("a.txt's change %+v: started from the buffer at version 3, now two", a)
	}
	if c := changes[1]; c.Existed || c.New != "c\n" {
		t.Errorf("new/c.txt's change %+v: a new file", c)
	}
	if f, ok := cs.staged("a.txt"); !ok || f.Source != FromStaged || f.Text != "two\n" {
		t.Errorf("staged a.txt: %+v %v", f, ok)
	}
	if got := cs.stagedPaths("new"); !slices.Equal(got, []string{"new/c.txt"}) {
		t.Errorf("stagedPaths(new) = %q", got)
	}
	if _, err := cs.Stage(".git/config", "x"); !errors.Is(err, ErrGitDir) {
		t.Errorf("a write under .git: %v, want ErrGitDir", err)
	}
	cs.Restore(changes[:1])
	if p := cs.Proposal(); len(p.Changes) != 1 || p.Changes[0].Path != "a.txt" {
		t.Errorf("after Restore the proposal is %+v, want a.txt alone", p.Changes)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(got) != "disk\n" {
		t.Errorf("disk was written: %q", got)
	}
}

func TestViewAlone(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "disk\n", "b.txt": "disk b\n"})
	rs, err := newRootSet([]Root{{Dir: root}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	overlay := mapOverlay{filepath.Join(rs.Root(), "a.txt"): {text: "buffer\n", version: 7}}
	cs := newChangeset(rs, nil) // what the view reads of it is all the view needs
	v := &View{roots: rs, overlay: overlay, changeset: cs}
	if f, err := v.Read("a.txt"); err != nil || f.Source != FromBuffer || f.Text != "buffer\n" || f.Version != 7 {
		t.Errorf("a.txt: %+v %v, want the buffer", f, err)
	}
	if f, disk, err := v.openRead("b.txt"); err != nil || disk == nil || f.Source != FromDisk {
		t.Errorf("b.txt: %+v %v %v, want disk, open", f, disk, err)
	} else {
		disk.Close()
	}
	if _, err := cs.Stage("a.txt", "staged\n"); err != nil {
		t.Fatal(err)
	}
	if f, err := v.Read("a.txt"); err != nil || f.Source != FromStaged || f.Text != "staged\n" {
		t.Errorf("a.txt: %+v %v, want the staged text", f, err)
	}
	if text, ok := v.unsavedText(filepath.Join(rs.Root(), "b.txt"), "b.txt"); ok {
		t.Errorf("b.txt has no unsaved text, got %q", text)
	}
	if _, err := v.Read("c.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := v.Read("../x"); !errors.Is(err, ErrOutsideWorkspace) {
		t.Errorf("a path out of the root: %v", err)
	}
}

func TestTreeAlone(t *testing.T) {
	rs, _, _ := apiAndWeb(t)
	// A walk needs the roots alone.
	var seen []string
	err := (&Tree{roots: rs}).walk(context.Background(), ".", 0, nil, func(e walkEntry) error {
		seen = append(seen, e.Rel)
		return nil
	})
	if want := []string{"api", "api/main.go", "web", "web/app.ts"}; err != nil || !slices.Equal(seen, want) {
		t.Errorf("walk saw %q (%v), want %q: no link out of the roots", seen, err, want)
	}
	// Listing and searching read through the view, with the staged files.
	cs := newChangeset(rs, nil)
	tree := &Tree{roots: rs, view: &View{roots: rs, changeset: cs}, changeset: cs}
	if _, err := cs.Stage("api/new.go", "package main // hit\n"); err != nil {
		t.Fatal(err)
	}
	res, err := tree.listFiles(context.Background(), "api", 0, time.Minute)
	if err != nil || res.Text != "api/main.go\napi/new.go (new, staged)\n" {
		t.Errorf("list api: %q %v", res.Text, err)
	}
	found, err := tree.search(context.Background(), "", ".", regexp.MustCompile("hit"), pathGlob{}, defaultSearchLimits)
	if err != nil || len(found.matches) != 1 || found.matches[0].Path != "api/new.go" {
		t.Errorf("search: %+v %v, want the staged file's line", found, err)
	}
}

func TestCommandsAlone(t *testing.T) {
	rs, _, web := apiAndWeb(t)
	cs := newChangeset(rs, nil)
	v := &View{roots: rs, changeset: cs}
	c := newCommands(rs, v, cs, &Tree{roots: rs, view: v, changeset: cs})
	if f, dir, err := c.commandDir(""); err != nil || f != rs.cur || dir != "." {
		t.Errorf("default cwd: %v %q %v, want the current root", f, dir, err)
	}
	if _, _, err := c.commandDir("web/out"); !errors.Is(err, ErrOutsideWorkspace) {
		t.Errorf("cwd through a link out: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close before any command: %v", err)
	}
	needSandbox(t)
	c.SetSandbox(SandboxOptions{Cache: filepath.Join(sandboxTestDir(), "shared-cache")})
	if _, err := cs.Stage("web/app.ts", "staged\n"); err != nil {
		t.Fatal(err)
	}
	out, err := c.RunCommand(context.Background(), "cat app.ts", time.Minute, 10_000)
	if err != nil || out.ExitCode != 0 || !strings.HasPrefix(out.Output, "staged\n") {
		t.Errorf("command in web's view: %+v %v, want the staged text", out, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if c.views[rs.cur] != nil {
		t.Error("Close left the view")
	}
	if got, _ := os.ReadFile(filepath.Join(web, "app.ts")); string(got) != "app\n" {
		t.Errorf("the user's file changed: %q", got)
	}
}
