package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// How a RootSet confines paths: a model's path is resolved ("..",
// absolute paths, symlinks of the longest existing prefix) and must then
// be in a root, compared as the root's volume compares names; a path not
// yet created is checked through its existing parent. What is not a
// model's path (a link's target met by a walk, a command's argument) is
// tested strictly, case and all (within).

// ErrOutsideWorkspace is returned for any path that resolves outside the roots.
var ErrOutsideWorkspace = errors.New("path is outside the workspace")

// Resolve maps a path given by the model (relative to the root, or, with
// several roots, starting with one's name; or absolute inside a root; in
// the system's spelling or, on Windows, with "/" or Git Bash's /c/…) to
// its absolute and slash-separated relative forms, refusing any path that
// leaves the roots lexically or through a symlink, and, on Windows, names
// that are no plain file (pathStyle.check). Where a root's volume ignores
// case, so does the comparison, and the absolute path starts with the
// root as the workspace spells it.
func (rs *RootSet) Resolve(p string) (abs, rel string, err error) {
	if strings.ContainsRune(p, 0) {
		return "", "", fmt.Errorf("%q: invalid path", p)
	}
	if p == "" {
		p = "."
	}
	base, p, err := rs.base(p)
	if err != nil {
		return "", "", err
	}
	p = base.paths.native(p, base.root)
	if err := base.paths.check(p); err != nil {
		return "", "", err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base.root, p)
	}
	p = filepath.Clean(p)
	if rs.folderOf(p) == nil {
		return "", "", rs.outside(p)
	}
	real, err := resolveExisting(p)
	if err != nil {
		return "", "", err
	}
	f := rs.folderOf(real)
	if f == nil {
		return "", "", rs.outside(fmt.Sprintf("%s resolves to %s", p, real))
	}
	in := f.paths.rel(f.root, real)
	if in == "." {
		return f.root, rs.display(f, in), nil
	}
	return filepath.Join(f.root, filepath.FromSlash(in)), rs.display(f, in), nil
}

// within reports whether p is root or below it, case and all: the strict
// test for what is not a model's path (a command's argument, a link's
// target), where a wrong "outside" costs a question and a wrong "inside"
// would not.
func within(root, p string) bool {
	return pathStyle{windows: hostPaths.windows}.within(root, p)
}

// resolveExisting evaluates symlinks in the longest existing prefix of p and
// appends the rest, so a path to a file not yet created is checked too.
func resolveExisting(p string) (string, error) {
	var rest []string
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				real = filepath.Join(real, rest[i])
			}
			return real, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = append(rest, filepath.Base(cur))
		cur = parent
	}
}

// folderOf is the innermost root that p (clean, absolute) is in, or nil.
func (rs *RootSet) folderOf(p string) *folder {
	var in *folder
	for _, f := range rs.folders {
		if f.paths.within(f.root, p) && (in == nil || len(f.root) > len(in.root)) {
			in = f
		}
	}
	return in
}

// base is where a model's path p starts: its root, and p without the
// root's name. An absolute path starts from the current root (whose drive
// a Windows path rooted without one is on).
func (rs *RootSet) base(p string) (*folder, string, error) {
	cur := rs.cur
	if !rs.several() || filepath.IsAbs(cur.paths.native(p, cur.root)) {
		return cur, p, nil
	}
	elems := strings.FieldsFunc(p, func(r rune) bool { return r == '/' || (cur.paths.windows && r == '\\') })
	for len(elems) > 0 && elems[0] == "." {
		elems = elems[1:]
	}
	if len(elems) == 0 {
		return nil, "", fmt.Errorf("%q is the top of the workspace, above its roots (%s): name a file or directory in one", p, rs.rootList())
	}
	for _, f := range rs.folders {
		if strings.EqualFold(f.name, elems[0]) {
			return f, path.Join(append([]string{"."}, elems[1:]...)...), nil
		}
	}
	return nil, "", fmt.Errorf("%q: %q %w; with several roots a path starts with a root's name: %s", p, elems[0], ErrUnknownRoot, rs.rootList())
}

// outside is the error for a path that is in no root; what says which.
func (rs *RootSet) outside(what string) error {
	if !rs.several() {
		return fmt.Errorf("%s: %w", what, ErrOutsideWorkspace)
	}
	return fmt.Errorf("%s: %w; its roots are %s", what, ErrOutsideWorkspace, rs.rootList())
}

// insideStrict reports whether p is in a root, case and all (within): the
// test for a symlink's target met by a walk.
func (rs *RootSet) insideStrict(p string) bool {
	for _, f := range rs.folders {
		if within(f.root, p) {
			return true
		}
	}
	return false
}

// resolveStart is Resolve for where a walk starts (list_files, search),
// which may also be the top of a workspace with several roots: abs is ""
// there.
func (rs *RootSet) resolveStart(p string) (abs, rel string, err error) {
	if rs.top(p) {
		return "", ".", nil
	}
	return rs.Resolve(p)
}
