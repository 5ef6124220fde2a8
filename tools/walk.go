package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Tree finds the workspace's files as the tools may see them: it walks
// the roots on disk (walk: ignore rules, links, nested roots), and lists
// (list_files.go) and searches (search.go) them through the view, with the
// files staged but not yet on disk. It holds no state of its own (a walk's
// is its walker's), so it is safe for concurrent use.
type Tree struct {
	roots     *RootSet
	view      *View      // the text a search reads
	changeset *Changeset // the staged files a walk cannot meet
}

// walkEntry is one file or directory met by walk.
type walkEntry struct {
	Rel string // slash-separated: as Resolve's rel, or relative to the root walkFolder walks
	// Abs is what to read: the entry itself, or a symlink's resolved target.
	Abs   string
	IsDir bool
	// Regular is a regular file (or a link to one): the only kind worth
	// reading; a FIFO or device would block or never end.
	Regular bool
	Depth   int // 1 for entries directly in the start directory
}

// maxDirEntries is how many entries of one directory a tool's walk looks
// at (those the system lists first, then sorted).
const maxDirEntries = 100_000

// walkReport is what a tool's walk (list_files, search) left out and why.
// A walk given one looks at maxDirEntries of a directory at most (or
// dirLimit, when set); a walk without one (the sandbox's copy) reads every
// directory whole. The ignore files' limits (gitignore.go) bound both.
type walkReport struct {
	dirLimit   int
	ignoresCut []string // ignore files whose later patterns were not applied
	dirsCut    []string // directories over the limit
}

func (r *walkReport) maxEntries() int { return cmp.Or(r.dirLimit, maxDirEntries) }

// notes are the report's lines for a tool's result, "" when nothing was
// left out.
func (r *walkReport) notes() string {
	var b strings.Builder
	if n := len(r.ignoresCut); n > 0 {
		fmt.Fprintf(&b, "(%s cut (over %s, or past what the patterns in force may weigh): %s; their later patterns were not applied, so some ignored files may be shown)\n",
			plural(n, "ignore file", "ignore files"), byteSize(maxIgnoreFileBytes), someOf(r.ignoresCut))
	}
	if n := len(r.dirsCut); n > 0 {
		fmt.Fprintf(&b, "(%s more than %d entries: %s; only %d of each were looked at)\n",
			plural(n, "directory has", "directories have"), r.maxEntries(), someOf(r.dirsCut), r.maxEntries())
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// someOf names the first few of paths.
func someOf(paths []string) string {
	const shown = 3
	if len(paths) <= shown {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:shown], ", "), len(paths)-shown)
}

// walk visits the tree under startRel (a path Resolve gave out; with
// several roots, "." is every root, each visited as a directory first) in
// lexical order, skipping .git, what git would ignore (ignoreRules: the
// user's excludes file, info/exclude, the .gitignore files, read as the
// walk descends), symlinks whose target is outside the roots (or
// missing), symlinked directories (they may loop, and what is inside is
// walked where it really is), and what is inside a root nested in the
// one walked (walked as that root). maxDepth <= 0 means unlimited. rep,
// when not nil, bounds the walk as a tool's and says what that left out.
// visit returning fs.SkipDir skips a directory (or the rest of the
// directory of a file); fs.SkipAll stops the walk. A cancelled ctx stops
// it with ctx's error.
func (t *Tree) walk(ctx context.Context, startRel string, maxDepth int, rep *walkReport, visit func(walkEntry) error) error {
	if !t.roots.top(startRel) {
		f, in := t.roots.split(startRel)
		if f == nil {
			return t.roots.outside(startRel)
		}
		return t.walkIn(ctx, f, in, maxDepth, true, rep, t.shown(f, 0, visit))
	}
	for _, f := range t.roots.folders {
		err := visit(walkEntry{Rel: f.name, Abs: f.root, IsDir: true, Depth: 1})
		switch {
		case err == fs.SkipAll:
			return nil
		case err == fs.SkipDir || maxDepth == 1:
			continue
		case err != nil:
			return err
		}
		stopped := false
		inner := t.shown(f, 1, func(e walkEntry) error {
			err := visit(e)
			stopped = err == fs.SkipAll
			return err
		})
		if err := t.walkIn(ctx, f, ".", max(maxDepth-1, 0), true, rep, inner); err != nil || stopped {
			return err
		}
	}
	return nil
}

// shown makes a walk of f's entries (paths relative to f) visit them as
// the tools show them, depth below the top counted too.
func (t *Tree) shown(f *folder, depth int, visit func(walkEntry) error) func(walkEntry) error {
	if !t.roots.several() {
		return visit
	}
	return func(e walkEntry) error {
		e.Rel, e.Depth = t.roots.display(f, e.Rel), e.Depth+depth
		return visit(e)
	}
}

// walkFolder is walk in one root, entries relative to it, every directory
// read whole. With leaveNested a root nested in f is visited as a
// directory but not entered.
func (t *Tree) walkFolder(ctx context.Context, f *folder, startRel string, maxDepth int, leaveNested bool, visit func(walkEntry) error) error {
	return t.walkIn(ctx, f, startRel, maxDepth, leaveNested, nil, visit)
}

// walker is one walk of one root. The ignore rules in force are those of
// the directory being read: a directory's .gitignore is added when the walk
// enters it and dropped when it leaves.
type walker struct {
	t           *Tree
	f           *folder
	ctx         context.Context
	maxDepth    int
	leaveNested bool
	rules       *ignoreRules
	rep         *walkReport // nil: no tool's limits, nothing to report
	visit       func(walkEntry) error
}

func (t *Tree) walkIn(ctx context.Context, f *folder, startRel string, maxDepth int, leaveNested bool, rep *walkReport, visit func(walkEntry) error) error {
	start := filepath.Join(f.root, filepath.FromSlash(startRel))
	fi, err := os.Lstat(start)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return nil
	}
	wk := &walker{t: t, f: f, ctx: ctx, maxDepth: maxDepth, leaveNested: leaveNested,
		rules: rulesAbove(f.root, startRel), rep: rep, visit: visit}
	for _, src := range wk.rules.cutFiles() {
		wk.noteCut(src)
	}
	wk.enter(startRel)
	err = wk.dir(start, startRel, 0)
	if err == fs.SkipAll || err == fs.SkipDir {
		return nil
	}
	return err
}

// enter adds the .gitignore of the directory rel to the rules in force.
func (wk *walker) enter(rel string) {
	file := readGitignore(wk.f.root, rel, wk.rules.room())
	if wk.rules.add(file) {
		wk.noteCut(file.source)
	}
}

// noteCut reports the ignore file src (relative to the root, or absolute
// outside the tree) as cut, once: with several roots, the user's excludes
// file is every root's.
func (wk *walker) noteCut(src string) {
	if wk.rep == nil {
		return
	}
	if !filepath.IsAbs(src) {
		src = wk.t.roots.display(wk.f, src)
	}
	if !slices.Contains(wk.rep.ignoresCut, src) {
		wk.rep.ignoresCut = append(wk.rep.ignoresCut, src)
	}
}

// dir visits the entries of the directory abs (rel from the root, depth
// below the start). Only the start's being unreadable is an error.
func (wk *walker) dir(abs, rel string, depth int) error {
	entries, err := wk.readDir(abs, rel)
	if err != nil && depth == 0 {
		return err
	}
	for _, d := range entries {
		err := wk.entry(abs, rel, depth+1, d)
		if err == fs.SkipDir { // from a file: the rest of this directory
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readDir lists a directory sorted by name, as os.ReadDir does; a tool's
// walk reads at most its report's maxEntries of it.
func (wk *walker) readDir(abs, rel string) ([]fs.DirEntry, error) {
	if wk.rep == nil {
		return os.ReadDir(abs)
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	limit := wk.rep.maxEntries()
	var entries []fs.DirEntry
	for len(entries) < limit {
		batch, err := f.ReadDir(min(4096, limit-len(entries)))
		entries = append(entries, batch...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return sortByName(entries), err
		}
	}
	if len(entries) == limit {
		if more, _ := f.ReadDir(1); len(more) > 0 {
			wk.rep.dirsCut = append(wk.rep.dirsCut, wk.t.roots.display(wk.f, rel)+"/")
		}
	}
	return sortByName(entries), nil
}

func sortByName(entries []fs.DirEntry) []fs.DirEntry {
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries
}

// entry visits one entry of the directory parentAbs, if the walk shows it,
// then walks into it when it is a directory to enter.
func (wk *walker) entry(parentAbs, parentRel string, depth int, d fs.DirEntry) error {
	if err := wk.ctx.Err(); err != nil {
		return err
	}
	e, ok := wk.judge(parentAbs, parentRel, depth, d)
	if !ok {
		return nil
	}
	err := wk.visit(e)
	switch {
	case !e.IsDir || err != nil:
		if e.IsDir && err == fs.SkipDir {
			return nil
		}
		return err
	case (wk.maxDepth > 0 && depth >= wk.maxDepth) || (wk.leaveNested && wk.t.roots.nestedRoot(wk.f, e.Abs)):
		return nil
	}
	mark := wk.rules.mark()
	wk.enter(e.Rel)
	err = wk.dir(e.Abs, e.Rel, depth)
	wk.rules.reset(mark)
	return err
}

// judge says what the entry d of the directory parentAbs is, and whether
// the walk shows it: not .git, a link out of the roots or to a directory,
// or what git ignores.
func (wk *walker) judge(parentAbs, parentRel string, depth int, d fs.DirEntry) (walkEntry, bool) {
	name := d.Name()
	if name == ".git" { // the repository, or a worktree's pointer to it
		return walkEntry{}, false
	}
	e := walkEntry{Rel: name, Abs: filepath.Join(parentAbs, name), IsDir: d.IsDir(), Regular: d.Type().IsRegular(), Depth: depth}
	if parentRel != "." && parentRel != "" {
		e.Rel = parentRel + "/" + name
	}
	if d.Type()&fs.ModeSymlink != 0 {
		target, fi, ok := wk.t.linkTarget(e.Abs)
		if !ok || fi.IsDir() {
			return walkEntry{}, false
		}
		e.Abs, e.Regular = target, fi.Mode().IsRegular()
	}
	return e, !wk.rules.ignored(e.Rel, e.IsDir)
}

// linkTarget resolves a symlink met by walk; ok is false when the target is
// missing or outside the roots, so nothing is read or shown through it.
func (t *Tree) linkTarget(link string) (string, fs.FileInfo, bool) {
	target, err := filepath.EvalSymlinks(link)
	if err != nil || !t.roots.insideStrict(target) {
		return "", nil, false
	}
	fi, err := os.Stat(target)
	return target, fi, err == nil
}

// rulesAbove gathers the patterns in force before the walk reads any
// .gitignore: the repository's (see baseRules), then those of the root and of
// every directory between it and startRel, so a walk that starts deep still
// honours them.
func rulesAbove(root, startRel string) *ignoreRules {
	rules := baseRules(root)
	if startRel == "." || startRel == "" {
		return rules
	}
	dir := "."
	rules.add(readGitignore(root, dir, rules.room()))
	for _, part := range splitPath(path.Dir(startRel)) {
		dir = path.Join(dir, part)
		rules.add(readGitignore(root, dir, rules.room()))
	}
	return rules
}

func splitPath(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(rel, "/")
}
