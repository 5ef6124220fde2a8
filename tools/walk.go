package tools

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

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

// walk visits the tree under startRel (a path Resolve gave out; with
// several roots, "." is every root, each visited as a directory first) in
// lexical order, skipping .git, what git would ignore (ignoreRules: the
// user's excludes file, info/exclude, the .gitignore files, read as the
// walk descends), symlinks whose target is outside the roots (or
// missing), symlinked directories (they may loop, and what is inside is
// walked where it really is), and what is inside a root nested in the
// one walked (walked as that root). maxDepth <= 0 means unlimited. visit
// returning fs.SkipDir skips a directory; fs.SkipAll stops the walk.
func (w *Workspace) walk(ctx context.Context, startRel string, maxDepth int, visit func(walkEntry) error) error {
	if !w.top(startRel) {
		f, in := w.split(startRel)
		if f == nil {
			return w.outside(startRel)
		}
		return w.walkFolder(ctx, f, in, maxDepth, true, w.shown(f, 0, visit))
	}
	for _, f := range w.folders {
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
		inner := w.shown(f, 1, func(e walkEntry) error {
			err := visit(e)
			stopped = err == fs.SkipAll
			return err
		})
		if err := w.walkFolder(ctx, f, ".", max(maxDepth-1, 0), true, inner); err != nil || stopped {
			return err
		}
	}
	return nil
}

// shown makes a walk of f's entries (paths relative to f) visit them as
// the tools show them, depth below the top counted too.
func (w *Workspace) shown(f *folder, depth int, visit func(walkEntry) error) func(walkEntry) error {
	if !w.several() {
		return visit
	}
	return func(e walkEntry) error {
		e.Rel, e.Depth = w.display(f, e.Rel), e.Depth+depth
		return visit(e)
	}
}

// walkFolder is walk in one root, entries relative to it. With leaveNested
// a root nested in f is visited as a directory but not entered.
func (w *Workspace) walkFolder(ctx context.Context, f *folder, startRel string, maxDepth int, leaveNested bool, visit func(walkEntry) error) error {
	rules := rulesAbove(f.root, startRel)
	start := filepath.Join(f.root, filepath.FromSlash(startRel))
	startDepth := depthOf(startRel)
	return filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start {
				return err
			}
			return nil // unreadable entries are skipped, not fatal
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p == start {
			if d.IsDir() {
				rules.add(readGitignore(p, startRel))
			}
			return nil
		}
		r, _ := filepath.Rel(f.root, p)
		rel := filepath.ToSlash(r)
		isDir, abs, regular := d.IsDir(), p, d.Type().IsRegular()
		if d.Name() == ".git" { // the repository, or a worktree's pointer to it
			if isDir {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, fi, ok := w.linkTarget(p)
			if !ok || fi.IsDir() {
				return nil
			}
			abs, regular = target, fi.Mode().IsRegular()
		}
		if rules.ignored(rel, isDir) {
			if isDir {
				return fs.SkipDir
			}
			return nil
		}
		depth := depthOf(rel) - startDepth
		if err := visit(walkEntry{Rel: rel, Abs: abs, IsDir: isDir, Regular: regular, Depth: depth}); err != nil {
			return err
		}
		if isDir {
			if (maxDepth > 0 && depth >= maxDepth) || (leaveNested && w.nestedRoot(f, p)) {
				return fs.SkipDir
			}
			rules.add(readGitignore(p, rel))
		}
		return nil
	})
}

// linkTarget resolves a symlink met by walk; ok is false when the target is
// missing or outside the roots, so nothing is read or shown through it.
func (w *Workspace) linkTarget(link string) (string, fs.FileInfo, bool) {
	target, err := filepath.EvalSymlinks(link)
	if err != nil || !w.insideStrict(target) {
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
	dir := ""
	rules.add(readGitignore(root, ""))
	for _, part := range splitPath(path.Dir(startRel)) {
		dir = path.Join(dir, part)
		rules.add(readGitignore(filepath.Join(root, filepath.FromSlash(dir)), dir))
	}
	return rules
}

// readGitignore reads the .gitignore of the directory dirAbs, whose path
// relative to the root is dirRel.
func readGitignore(dirAbs, dirRel string) []gitignore.Pattern {
	var domain []string
	if dirRel != "." && dirRel != "" {
		domain = strings.Split(dirRel, "/")
	}
	return readIgnoreFile(filepath.Join(dirAbs, ".gitignore"), domain)
}

func depthOf(rel string) int {
	if rel == "." || rel == "" {
		return 0
	}
	return len(splitPath(rel))
}

func splitPath(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	var parts []string
	for rel != "." && rel != "/" && rel != "" {
		parts = append([]string{path.Base(rel)}, parts...)
		rel = path.Dir(rel)
	}
	return parts
}
