package tools

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// describe is a path-taking tool's description over rs: as written with
// one root, the path scheme added with several.
func (rs *RootSet) describe(description string) string {
	if !rs.several() {
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

// folder is one root of a workspace: its name, its directory and how paths
// in it are spelled and compared. It is fixed when made (its commands' view
// is Commands').
type folder struct {
	name  string
	root  string    // absolute, symlinks resolved
	paths pathStyle // how the system spells paths, and whether root's volume ignores case
}

// RootSet is a workspace's roots and how paths name files in them (the
// scheme at the top of roots.go); Resolve (resolve.go) confines every path
// to them. It is fixed when made, so it is safe for concurrent use without
// a lock.
type RootSet struct {
	// cur is the current root: where commands run unless told otherwise,
	// and Root's answer.
	cur     *folder
	folders []*folder // every root, in the order given; cur among them
}

// newRootSet resolves roots (see NewWorkspaceRoots), roots[current] the
// current one.
func newRootSet(roots []Root, current int) (*RootSet, error) {
	if current < 0 || current >= len(roots) {
		return nil, fmt.Errorf("workspace: no root %d of %d", current, len(roots))
	}
	rs := &RootSet{}
	var names []string
	for i, r := range roots {
		f, err := openFolder(r.Dir)
		if err != nil {
			return nil, err
		}
		if dup := slices.IndexFunc(rs.folders, func(o *folder) bool { return o.root == f.root }); dup >= 0 {
			if i == current {
				rs.cur = rs.folders[dup]
			}
			continue
		}
		f.name = r.Name
		if f.name == "" {
			f.name = RootName(f.root, names)
		}
		if err := validRootName(f.name); err != nil {
			return nil, err
		}
		if nameTaken(f.name, names) {
			return nil, fmt.Errorf("workspace: two roots are named %q", f.name)
		}
		names = append(names, f.name)
		rs.folders = append(rs.folders, f)
		if i == current {
			rs.cur = f
		}
	}
	return rs, nil
}

// openFolder resolves a root's links and checks it is a directory.
func openFolder(dir string) (*folder, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace root: %w", err)
	}
	if fi, err := os.Stat(resolved); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("workspace root %s is not a directory", dir)
	}
	paths := hostPaths
	paths.foldCase = caseInsensitive(resolved, hostPaths.foldCase)
	return &folder{root: resolved, paths: paths}, nil
}

// Root is the absolute, symlink-resolved current root.
func (rs *RootSet) Root() string { return rs.cur.root }

// several reports whether paths carry their root's name.
func (rs *RootSet) several() bool { return len(rs.folders) > 1 }

// Roots lists the workspace's roots in order, their links resolved.
func (rs *RootSet) Roots() []Root {
	out := make([]Root, len(rs.folders))
	for i, f := range rs.folders {
		out[i] = Root{Name: f.name, Dir: f.root}
	}
	return out
}

// Current is the root runs start in: where commands run unless told
// otherwise (Root is its Dir).
func (rs *RootSet) Current() Root { return Root{Name: rs.cur.name, Dir: rs.cur.root} }

// top reports whether p names the top of a workspace with several roots,
// which holds the roots and no file of its own.
func (rs *RootSet) top(p string) bool {
	return rs.several() && (p == "" || p == "." || p == "./")
}

// display is the path the tools show for rel, a slash path in f.
func (rs *RootSet) display(f *folder, rel string) string {
	if !rs.several() {
		return rel
	}
	if rel == "." || rel == "" {
		return f.name
	}
	return f.name + "/" + rel
}

// split is the root of a path the workspace gave out (a Change's, a walk
// entry's) and the path in it; "." is the top in a workspace with several.
func (rs *RootSet) split(rel string) (*folder, string) {
	if !rs.several() {
		return rs.folders[0], rel
	}
	name, rest, _ := strings.Cut(rel, "/")
	for _, f := range rs.folders {
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
func (rs *RootSet) absOf(rel string) string {
	f, in := rs.split(rel)
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
func (rs *RootSet) key(rel string) string {
	if f, _ := rs.split(rel); f != nil {
		return f.paths.key(rel)
	}
	return rel
}

// relOf is the path the tools show for p (clean, absolute), if p is in a root.
func (rs *RootSet) relOf(p string) (string, bool) {
	f := rs.folderOf(p)
	if f == nil {
		return "", false
	}
	return rs.display(f, f.paths.rel(f.root, p)), true
}

// rootList names the roots for an error: "api/ (/src/api), web/ (/src/web)".
func (rs *RootSet) rootList() string {
	parts := make([]string, len(rs.folders))
	for i, f := range rs.folders {
		parts[i] = fmt.Sprintf("%s/ (%s)", f.name, f.root)
	}
	return strings.Join(parts, ", ")
}

// nestedRoot reports whether dir (absolute) is another root below f: its
// files are that root's, and a walk of f leaves them to it.
func (rs *RootSet) nestedRoot(f *folder, dir string) bool {
	for _, o := range rs.folders {
		if o != f && o.root == dir {
			return true
		}
	}
	return false
}

// rootDirs are the roots' directories.
func (rs *RootSet) rootDirs() []string {
	dirs := make([]string, len(rs.folders))
	for i, f := range rs.folders {
		dirs[i] = f.root
	}
	return dirs
}
