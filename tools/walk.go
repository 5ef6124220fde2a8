package tools

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// walkEntry is one file or directory met by walk.
type walkEntry struct {
	Rel   string // slash-separated, relative to the root
	IsDir bool
	Depth int // 1 for entries directly in the start directory
}

// walk visits the tree under startRel in lexical order, skipping .git, what the
// .gitignore files (root and nested) ignore, and symlinked directories (they
// may lead outside the workspace). maxDepth <= 0 means unlimited. visit
// returning fs.SkipDir skips a directory; fs.SkipAll stops the walk.
func (w *Workspace) walk(ctx context.Context, startRel string, maxDepth int, visit func(walkEntry) error) error {
	rules := w.rulesAbove(startRel)
	start := filepath.Join(w.root, filepath.FromSlash(startRel))
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
				rules = append(rules, readGitignore(p, startRel)...)
			}
			return nil
		}
		r, _ := filepath.Rel(w.root, p)
		rel := filepath.ToSlash(r)
		isDir := d.IsDir()
		if d.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				return nil
			}
		}
		if isDir && d.Name() == ".git" {
			return fs.SkipDir
		}
		if rules.ignored(rel, isDir) {
			if isDir {
				return fs.SkipDir
			}
			return nil
		}
		depth := depthOf(rel) - startDepth
		if err := visit(walkEntry{Rel: rel, IsDir: isDir, Depth: depth}); err != nil {
			return err
		}
		if isDir {
			if maxDepth > 0 && depth >= maxDepth {
				return fs.SkipDir
			}
			rules = append(rules, readGitignore(p, rel)...)
		}
		return nil
	})
}

// rulesAbove gathers the .gitignore rules of the root and of every directory
// between it and startRel, so a walk that starts deep still honours them.
func (w *Workspace) rulesAbove(startRel string) ignoreRules {
	var rules ignoreRules
	if startRel == "." || startRel == "" {
		return rules
	}
	dir := ""
	rules = append(rules, readGitignore(w.root, "")...)
	for _, part := range splitPath(path.Dir(startRel)) {
		dir = path.Join(dir, part)
		rules = append(rules, readGitignore(filepath.Join(w.root, filepath.FromSlash(dir)), dir)...)
	}
	return rules
}

func readGitignore(dirAbs, dirRel string) ignoreRules {
	data, err := os.ReadFile(filepath.Join(dirAbs, ".gitignore"))
	if err != nil {
		return nil
	}
	if dirRel == "." {
		dirRel = ""
	}
	return parseGitignore(dirRel, data)
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
