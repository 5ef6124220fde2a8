package tools

import (
	_ "embed"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// The path scheme of a workspace with several roots (an editor's
// workspace folders, an ACP session's directories), in one place:
//
//   - With one root, a path is relative to it, as it always was.
//   - With several, a relative path starts with a root's name
//     (api/src/main.go), and "." (or "") is the top, above the roots,
//     which only list_files and search take. The rest of the path is
//     resolved on disk from that root: "api/../web/x" is whatever the
//     folder beside api's holds, accepted only if that is in a root.
//   - A root's name is its folder's base name; a second folder of the same
//     name (in any case) is name~2, then name~3 (RootName), in the order
//     the client lists them. A path may spell the name in any case. The
//     language server keeps a folder's name while it runs: removing one
//     frees its name and renames no other.
//   - An absolute path is accepted in any root, and every path, after ".."
//     and symlinks are resolved, must be in a root. A file in nested roots
//     belongs to the innermost one, so one file has one name.

// Root is one folder of a workspace.
type Root struct {
	// Name starts the paths of its files when the workspace has several
	// roots; "" takes RootName's.
	Name string
	// Dir is the folder, absolute (NewWorkspaceRoots resolves its links).
	Dir string
}

//go:embed roots.md
var rootsNote string

// RootsNote is what every path-taking tool adds to its description when
// the workspace has several roots.
func RootsNote() string { return strings.TrimSpace(rootsNote) }

// describe is a path-taking tool's description over w: as written with
// one root, the path scheme added with several.
func (w *Workspace) describe(description string) string {
	if !w.several() {
		return description
	}
	return strings.TrimSpace(description) + " " + RootsNote()
}

// RootName is the name the folder dir takes beside roots already named
// taken: its base name, else, when a root has that name in any case (names
// must tell roots apart on a case-blind volume too), the base name with
// ~2, ~3 … A folder without a usable base name (a volume's root) is "root".
func RootName(dir string, taken []string) string {
	base := filepath.Base(filepath.Clean(dir))
	if validRootName(base) != nil {
		base = "root"
	}
	name := base
	for n := 2; nameTaken(name, taken); n++ {
		name = base + "~" + strconv.Itoa(n)
	}
	return name
}

func nameTaken(name string, taken []string) bool {
	for _, t := range taken {
		if strings.EqualFold(t, name) {
			return true
		}
	}
	return false
}

// validRootName refuses a name that would not be the first element of a
// path: empty, "." or "..", with a separator (either, on any system: a
// model may write either) or a NUL, or a drive's "C:".
func validRootName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("root name %q: not a name", name)
	case strings.ContainsAny(name, `/\:`+"\x00"):
		return fmt.Errorf("root name %q: has a separator", name)
	}
	return nil
}

// ErrUnknownRoot is why a relative path whose first element names no root
// is refused in a workspace with several.
var ErrUnknownRoot = errors.New("names no root of the workspace")

// folder is one root of a workspace and what is its own: its confinement
// rules and the view its commands run in.
type folder struct {
	name  string
	root  string    // absolute, symlinks resolved
	paths pathStyle // how the system spells paths, and whether root's volume ignores case
	view  commandView
	// view is guarded by the Workspace's mu: made at the first command run
	// in this root, removed by Close.
}

// several reports whether paths carry their root's name.
func (w *Workspace) several() bool { return len(w.folders) > 1 }

// Roots lists the workspace's roots in order, their links resolved.
func (w *Workspace) Roots() []Root {
	out := make([]Root, len(w.folders))
	for i, f := range w.folders {
		out[i] = Root{Name: f.name, Dir: f.root}
	}
	return out
}

// Current is the root runs start in: where commands run unless told
// otherwise (Root is its Dir).
func (w *Workspace) Current() Root { return Root{Name: w.folder.name, Dir: w.folder.root} }

// top reports whether p names the top of a workspace with several roots,
// which holds the roots and no file of its own.
func (w *Workspace) top(p string) bool {
	return w.several() && (p == "" || p == "." || p == "./")
}

// display is the path the tools show for rel, a slash path in f.
func (w *Workspace) display(f *folder, rel string) string {
	if !w.several() {
		return rel
	}
	if rel == "." || rel == "" {
		return f.name
	}
	return f.name + "/" + rel
}

// split is the root of a path the workspace gave out (a Change's, a walk
// entry's) and the path in it; "." is the top in a workspace with several.
func (w *Workspace) split(rel string) (*folder, string) {
	if !w.several() {
		return w.folders[0], rel
	}
	name, rest, _ := strings.Cut(rel, "/")
	for _, f := range w.folders {
		if strings.EqualFold(f.name, name) {
			if rest == "" {
				rest = "."
			}
			return f, rest
		}
	}
	return nil, rel
}

// absOf is the file a path the workspace gave out names.
func (w *Workspace) absOf(rel string) string {
	f, in := w.split(rel)
	if f == nil {
		return ""
	}
	if in == "." {
		return f.root
	}
	return filepath.Join(f.root, filepath.FromSlash(in))
}

// key is what a staged change of rel is looked up by: with foldCase (of
// its root's volume) one spelling for all its cases.
func (w *Workspace) key(rel string) string {
	if f, _ := w.split(rel); f != nil {
		return f.paths.key(rel)
	}
	return rel
}

// folderOf is the innermost root that p (clean, absolute) is in, or nil.
func (w *Workspace) folderOf(p string) *folder {
	var in *folder
	for _, f := range w.folders {
		if f.paths.within(f.root, p) && (in == nil || len(f.root) > len(in.root)) {
			in = f
		}
	}
	return in
}

// relOf is the path the tools show for p (clean, absolute), if p is in a root.
func (w *Workspace) relOf(p string) (string, bool) {
	f := w.folderOf(p)
	if f == nil {
		return "", false
	}
	return w.display(f, f.paths.rel(f.root, p)), true
}

// base is where a model's path p starts: its root, and p without the
// root's name. An absolute path starts from the current root (whose drive
// a Windows path rooted without one is on).
func (w *Workspace) base(p string) (*folder, string, error) {
	cur := w.folder
	if !w.several() || filepath.IsAbs(cur.paths.native(p, cur.root)) {
		return cur, p, nil
	}
	elems := strings.FieldsFunc(p, func(r rune) bool { return r == '/' || (cur.paths.windows && r == '\\') })
	for len(elems) > 0 && elems[0] == "." {
		elems = elems[1:]
	}
	if len(elems) == 0 {
		return nil, "", fmt.Errorf("%q is the top of the workspace, above its roots (%s): name a file or directory in one", p, w.rootList())
	}
	for _, f := range w.folders {
		if strings.EqualFold(f.name, elems[0]) {
			return f, path.Join(append([]string{"."}, elems[1:]...)...), nil
		}
	}
	return nil, "", fmt.Errorf("%q: %q %w; with several roots a path starts with a root's name: %s", p, elems[0], ErrUnknownRoot, w.rootList())
}

// rootList names the roots for an error: "api/ (/src/api), web/ (/src/web)".
func (w *Workspace) rootList() string {
	parts := make([]string, len(w.folders))
	for i, f := range w.folders {
		parts[i] = fmt.Sprintf("%s/ (%s)", f.name, f.root)
	}
	return strings.Join(parts, ", ")
}

// outside is the error for a path that is in no root; what says which.
func (w *Workspace) outside(what string) error {
	if !w.several() {
		return fmt.Errorf("%s: %w", what, ErrOutsideWorkspace)
	}
	return fmt.Errorf("%s: %w; its roots are %s", what, ErrOutsideWorkspace, w.rootList())
}

// insideStrict reports whether p is in a root, case and all (within): the
// test for a symlink's target met by a walk.
func (w *Workspace) insideStrict(p string) bool {
	for _, f := range w.folders {
		if within(f.root, p) {
			return true
		}
	}
	return false
}

// nestedRoot reports whether dir (absolute) is another root below f: its
// files are that root's, and a walk of f leaves them to it.
func (w *Workspace) nestedRoot(f *folder, dir string) bool {
	for _, o := range w.folders {
		if o != f && o.root == dir {
			return true
		}
	}
	return false
}

// resolveStart is Resolve for where a walk starts (list_files, search),
// which may also be the top of a workspace with several roots: abs is ""
// there.
func (w *Workspace) resolveStart(p string) (abs, rel string, err error) {
	if w.top(p) {
		return "", ".", nil
	}
	return w.Resolve(p)
}
