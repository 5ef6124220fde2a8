package tools

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/sourcegraph/conc/pool"
)

//go:embed search.md
var searchDescription string

const (
	maxSearchMatches  = 200
	maxSearchLineLen  = 300
	maxSearchFileSize = 4 << 20
)

type searchParams struct {
	Pattern string `json:"pattern" jsonschema:"regular expression (RE2) to search for"`
	Path    string `json:"path,omitempty" jsonschema:"directory or file to search in, relative to the root (default: the root)"`
	Glob    string `json:"glob,omitempty" jsonschema:"only files whose path matches this glob, e.g. *.go"`
}

type searchMatch struct {
	Path string
	Line int
	Text string
}

// NewSearch searches the workspace with a regexp.
func NewSearch(w *Workspace) Tool {
	return newTypedTool("search", w.describe(searchDescription), true, func(ctx context.Context, p searchParams) (Result, error) {
		re, err := regexp.Compile(p.Pattern)
		if err != nil {
			return Errorf("invalid pattern: %v (RE2 syntax; escape literal characters such as ( or [)", err), nil
		}
		glob, err := newPathGlob(p.Glob)
		if err != nil {
			return Errorf("invalid glob %q: %v", p.Glob, err), nil
		}
		abs, rel, err := w.resolveStart(p.Path)
		if err != nil {
			return pathError(err), nil
		}
		var rep walkReport
		matches, cut, err := w.search(ctx, abs, rel, re, glob, &rep)
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			return pathError(err), nil
		}
		notes := rep.notes()
		if len(matches) == 0 {
			if notes != "" {
				return Result{Text: "no matches\n" + notes}, nil
			}
			return Result{Text: "no matches"}, nil
		}
		var b strings.Builder
		for _, m := range matches {
			fmt.Fprintf(&b, "%s:%d: %s\n", m.Path, m.Line, m.Text)
		}
		if cut {
			fmt.Fprintf(&b, "(results cut at %d matches; narrow the pattern, path or glob)\n", maxSearchMatches)
		}
		b.WriteString(notes)
		return Result{Text: b.String(), Data: matches}, nil
	})
}

// pathGlob is search's file filter, a doublestar glob: one without a slash
// ("*.go") matches the base name at any depth, one with a slash
// ("cmd/**/*.go") the path relative to the root. The zero value matches
// every path.
type pathGlob struct {
	pattern string
	byName  bool
}

func newPathGlob(glob string) (pathGlob, error) {
	if glob == "" {
		return pathGlob{}, nil
	}
	g := pathGlob{pattern: strings.TrimPrefix(glob, "/"), byName: !strings.Contains(glob, "/")}
	if !doublestar.ValidatePattern(g.pattern) {
		return pathGlob{}, doublestar.ErrBadPattern
	}
	return g, nil
}

func (g pathGlob) match(rel string) bool {
	if g.pattern == "" {
		return true
	}
	if g.byName {
		rel = path.Base(rel)
	}
	ok, _ := doublestar.Match(g.pattern, rel)
	return ok
}

// search lists candidate files in one goroutine and matches them in a pool of
// workers; results are sorted by path and line. When more than the cap match,
// which ones are kept depends on scheduling, and cut says so.
func (w *Workspace) search(ctx context.Context, abs, rel string, re *regexp.Regexp, glob pathGlob, rep *walkReport) ([]searchMatch, bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	files := make(chan walkEntry, 256)
	var (
		mu      sync.Mutex // guards matches
		matches []searchMatch
		total   atomic.Int64
	)
	// Reading is mostly waiting on open/read syscalls: more workers than cores.
	workers := 4 * runtime.GOMAXPROCS(0)
	p := pool.New().WithMaxGoroutines(workers)
	for range workers {
		p.Go(func() {
			var buf []byte // reused for every file this worker reads from disk
			for f := range files {
				if total.Load() > maxSearchMatches {
					continue // drain
				}
				found := w.searchFile(f.Rel, f.Abs, re, &buf)
				if len(found) == 0 {
					continue
				}
				if total.Add(int64(len(found))) > maxSearchMatches {
					cancel()
				}
				mu.Lock()
				matches = append(matches, found...)
				mu.Unlock()
			}
		})
	}
	accept := glob.match
	seen := map[string]bool{}
	var walkErr error
	if fi, err := os.Stat(abs); abs != "" && err == nil && !fi.IsDir() {
		files <- walkEntry{Rel: rel, Abs: abs}
	} else {
		walkErr = w.walk(ctx, rel, 0, rep, func(e walkEntry) error {
			if e.Regular && accept(e.Rel) { // a FIFO or device is never read
				seen[e.Rel] = true
				files <- e
			}
			return nil
		})
		for _, s := range w.stagedPaths(rel) {
			if !seen[s] && accept(s) {
				files <- walkEntry{Rel: s, Abs: w.absOf(s)}
			}
		}
	}
	close(files)
	p.Wait()
	cut := total.Load() > maxSearchMatches
	if walkErr != nil && !cut {
		return nil, false, walkErr
	}
	sort.Slice(matches, func(i, j int) bool {
		if matches[i].Path != matches[j].Path {
			return matches[i].Path < matches[j].Path
		}
		return matches[i].Line < matches[j].Line
	})
	if len(matches) > maxSearchMatches {
		matches = matches[:maxSearchMatches]
	}
	return matches, cut, nil
}

// searchFile matches one file as the view sees it; abs is what rel resolves
// to (a symlink's target), whose staged text or buffer is the one to search.
// A file read from disk is scanned in the worker's buffer, and turned into a
// string only when it matches: most files don't.
func (w *Workspace) searchFile(rel, abs string, re *regexp.Regexp, buf *[]byte) []searchMatch {
	key := rel
	if r, ok := w.relOf(abs); ok {
		key = r
	}
	if text, ok := w.unsavedText(abs, key); ok {
		if len(text) > maxSearchFileSize || isBinary(text[:min(len(text), 8000)]) || !re.MatchString(text) {
			return nil
		}
		return matchLines(rel, text, re)
	}
	data, err := readInto(abs, buf)
	if err != nil || len(data) > maxSearchFileSize || isBinary(data[:min(len(data), 8000)]) || !re.Match(data) {
		return nil
	}
	return matchLines(rel, string(data), re)
}

// unsavedText is the staged or open-buffer text of a file, when it has one
// (of a KnownOverlay, only the buffers it holds: a search must not ask the
// editor for every file).
func (w *Workspace) unsavedText(abs, rel string) (string, bool) {
	w.mu.Lock()
	c, staged := w.changes[w.key(rel)]
	w.mu.Unlock()
	if staged {
		return c.New, true
	}
	if w.overlay != nil {
		return scanBuffer(w.overlay, abs)
	}
	return "", false
}

// readInto reads a whole regular file into *buf, growing it as needed.
func readInto(path string, buf *[]byte) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := (*buf)[:0]
	for {
		if len(b) == cap(b) {
			if cap(b) > maxSearchFileSize {
				return b, nil // over the limit; the caller skips it
			}
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			*buf = b
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func isBinary[T string | []byte](head T) bool {
	for i := 0; i < len(head); i++ {
		if head[i] == 0 {
			return true
		}
	}
	return false
}

func matchLines(rel, text string, re *regexp.Regexp) []searchMatch {
	var out []searchMatch
	line := 1
	for len(text) > 0 {
		end := strings.IndexByte(text, '\n')
		var l string
		if end < 0 {
			l, text = text, ""
		} else {
			l, text = text[:end], text[end+1:]
		}
		l = strings.TrimRight(l, "\r")
		if re.MatchString(l) {
			if len(l) > maxSearchLineLen {
				l = l[:maxSearchLineLen] + "…"
			}
			out = append(out, searchMatch{Path: rel, Line: line, Text: l})
		}
		line++
	}
	return out
}
