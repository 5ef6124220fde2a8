package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"
)

//go:embed list_files.md
var listFilesDescription string

// A listing shows at most maxListEntries entries and stops, saying so,
// after maxListTime; its walk's own limits are walk.go's.
const (
	defaultListDepth = 3
	maxListEntries   = 1000
	maxListTime      = 10 * time.Second
)

type listFilesParams struct {
	Path  string `json:"path,omitempty" jsonschema:"directory relative to the workspace root (default: the root)"`
	Depth int    `json:"depth,omitempty" jsonschema:"how many levels to descend (default 3)"`
}

func init() {
	Present("list_files", Presentation{Kind: KindSearch, PathArg: "path", Title: func(c Call) string {
		if c.String("path") == "" {
			return "List the workspace"
		}
		return "List " + c.Path("path")
	}})
}

// NewListFiles lists the workspace tree as the agent may see it.
func NewListFiles(w *Workspace) Tool {
	return newTypedTool("list_files", w.describe(listFilesDescription), true, func(ctx context.Context, p listFilesParams) (Result, error) {
		_, rel, err := w.resolveStart(p.Path)
		if err != nil {
			return pathError(err), nil
		}
		depth := p.Depth
		if depth <= 0 {
			depth = defaultListDepth
		}
		return w.listFiles(ctx, rel, depth, maxListTime)
	})
}

var errListTime = errors.New("time")

// listFiles lists rel down to depth, for at most budget.
func (t *Tree) listFiles(ctx context.Context, rel string, depth int, budget time.Duration) (Result, error) {
	lctx, cancel := context.WithTimeoutCause(ctx, budget, errListTime)
	defer cancel()
	seen := map[string]bool{}
	var entries []string
	var rep walkReport
	cut := false
	err := t.walk(lctx, rel, depth, &rep, func(e walkEntry) error {
		if len(entries) >= maxListEntries {
			cut = true
			return fs.SkipAll
		}
		name := e.Rel
		if e.IsDir {
			name += "/"
		}
		seen[e.Rel] = true
		entries = append(entries, name)
		return nil
	})
	switch {
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case err != nil && context.Cause(lctx) != errListTime:
		return pathError(err), nil
	}
	for _, s := range t.changeset.stagedPaths(rel) {
		if !seen[s] && len(entries) < maxListEntries {
			entries = append(entries, s+" (new, staged)")
		}
	}
	sort.Strings(entries)
	notes := rep.notes()
	if err != nil {
		notes = fmt.Sprintf("(listing stopped after %v: what was not reached is not shown; list a subdirectory or lower depth)\n", budget) + notes
	}
	if len(entries) == 0 && notes == "" {
		return Result{Text: fmt.Sprintf("(%s is empty)", rel)}, nil
	}
	text := strings.Join(entries, "\n")
	if len(entries) > 0 {
		text += "\n"
	}
	if cut {
		text += fmt.Sprintf("(listing cut at %d entries; list a subdirectory or lower depth)\n", maxListEntries)
	}
	return Result{Text: text + notes, Data: entries}, nil
}
