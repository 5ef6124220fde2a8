package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/sourcegraph/conc/pool"
)

//go:embed search.md
var searchDescription string

// A search's bounds. A file over maxSearchFileSize is skipped, unread
// (its size is known before reading; one that grows meanwhile is read no
// further than the limit), and the result names it. A search stops, and
// says so, once it has read maxSearchBytes in all or spent maxSearchTime:
// what it found by then is returned.
const (
	maxSearchMatches  = 200
	maxSearchLineLen  = 300
	maxSearchFileSize = 4 << 20
	maxSearchBytes    = 512 << 20
	maxSearchTime     = 10 * time.Second
	maxSearchWorkers  = 32
)

// searchLimits are the bounds of one search (defaultSearchLimits but in tests).
type searchLimits struct {
	fileBytes  int
	totalBytes int64
	time       time.Duration
}

var defaultSearchLimits = searchLimits{fileBytes: maxSearchFileSize, totalBytes: maxSearchBytes, time: maxSearchTime}

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

func init() {
	Present("search", Presentation{Kind: KindSearch, PathArg: "path", Title: func(c Call) string {
		title := "Search " + c.Code("pattern")
		if c.String("path") != "" {
			title += " in " + c.Path("path")
		}
		if glob := c.String("glob"); glob != "" {
			title += " (" + glob + ")"
		}
		return title
	}})
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
		found, err := w.search(ctx, abs, rel, re, glob, defaultSearchLimits)
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			return pathError(err), nil
		}
		return Result{Text: found.text(), Data: found.matches}, nil
	})
}

// searchFound is what one search found, and what it left out.
type searchFound struct {
	matches []searchMatch
	cut     bool         // more than maxSearchMatches matched
	stopped error        // why the search ended before the last file: errSearchTime or errSearchBytes
	limits  searchLimits // in force
	tooBig  []string     // files over limits.fileBytes, skipped, with their sizes
	walk    walkReport   // what the walk left out
}

var (
	errSearchTime  = errors.New("time")
	errSearchBytes = errors.New("bytes")
)

// text is the result for the model: a line per match, then a line for
// each limit that left something out.
func (s *searchFound) text() string {
	var b strings.Builder
	if len(s.matches) == 0 {
		b.WriteString("no matches\n")
	}
	for _, m := range s.matches {
		fmt.Fprintf(&b, "%s:%d: %s\n", m.Path, m.Line, m.Text)
	}
	if s.cut {
		fmt.Fprintf(&b, "(results cut at %d matches; narrow the pattern, path or glob)\n", maxSearchMatches)
	}
	switch s.stopped {
	case errSearchTime:
		fmt.Fprintf(&b, "(search stopped after %v: the files not yet read were not searched; narrow the path or glob)\n", s.limits.time)
	case errSearchBytes:
		fmt.Fprintf(&b, "(search stopped after reading %s: the files not yet read were not searched; narrow the path or glob)\n", byteSize(s.limits.totalBytes))
	}
	if n := len(s.tooBig); n > 0 {
		fmt.Fprintf(&b, "(%s over %s not searched: %s; read_file with offset and limit reads a part)\n",
			plural(n, "file", "files"), byteSize(int64(s.limits.fileBytes)), someOf(s.tooBig))
	}
	b.WriteString(s.walk.notes())
	if len(s.matches) == 0 && b.Len() == len("no matches\n") {
		return "no matches"
	}
	return b.String()
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
// or a limit stops the search, which ones are kept depends on scheduling,
// and the result says so. Only the caller's ctx ending is an error.
func (t *Tree) search(ctx context.Context, abs, rel string, re *regexp.Regexp, glob pathGlob, lim searchLimits) (*searchFound, error) {
	sctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	sctx, cancel := context.WithTimeoutCause(sctx, lim.time, errSearchTime)
	defer cancel()
	s := &searching{t: t, re: re, ctx: sctx, stop: stop, found: &searchFound{limits: lim}}
	files := make(chan walkEntry, 256)
	// Reading is mostly waiting on open/read syscalls: more workers than
	// cores, but few enough that their buffers stay small.
	workers := min(4*runtime.GOMAXPROCS(0), maxSearchWorkers)
	p := pool.New().WithMaxGoroutines(workers)
	for range workers {
		p.Go(func() { s.work(files) })
	}
	walkErr := t.candidates(sctx, abs, rel, glob, &s.found.walk, files)
	close(files)
	p.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	found := s.found
	found.cut = s.total.Load() > maxSearchMatches
	if cause := context.Cause(sctx); cause == errSearchTime || cause == errSearchBytes {
		found.stopped = cause
	}
	if walkErr != nil && sctx.Err() == nil {
		return nil, walkErr
	}
	found.order()
	return found, nil
}

// searching is one search's workers' shared state.
type searching struct {
	t    *Tree
	re   *regexp.Regexp
	ctx  context.Context // ends when a limit stops the search
	stop context.CancelCauseFunc

	mu          sync.Mutex // guards found.matches and found.tooBig
	found       *searchFound
	total, read atomic.Int64 // matches found, bytes searched
}

// work matches the files it is sent until they end; past a limit it only
// drains them.
func (s *searching) work(files <-chan walkEntry) {
	lim := s.found.limits
	var buf []byte // reused for every file this worker reads from disk
	for f := range files {
		if s.ctx.Err() != nil {
			continue // drain
		}
		if s.read.Load() >= lim.totalBytes {
			s.stop(errSearchBytes)
			continue
		}
		hits, n, size := s.t.searchFile(f.Rel, f.Abs, s.re, &buf, lim.fileBytes)
		s.read.Add(n)
		if cap(buf) > 1<<20 {
			buf = nil // a big file's buffer is not kept for small ones
		}
		if size > 0 || len(hits) > 0 {
			s.mu.Lock()
			if size > 0 {
				s.found.tooBig = append(s.found.tooBig, fmt.Sprintf("%s (%s)", f.Rel, byteSize(size)))
			}
			s.found.matches = append(s.found.matches, hits...)
			s.mu.Unlock()
		}
		if len(hits) > 0 && s.total.Add(int64(len(hits))) > maxSearchMatches {
			s.stop(nil)
		}
	}
}

// candidates sends the files a search looks in: abs when it names a file,
// else the regular files under rel the glob accepts, then the staged ones
// the walk did not see (new files).
func (t *Tree) candidates(ctx context.Context, abs, rel string, glob pathGlob, rep *walkReport, files chan<- walkEntry) error {
	if fi, err := os.Stat(abs); abs != "" && err == nil && !fi.IsDir() {
		files <- walkEntry{Rel: rel, Abs: abs}
		return nil
	}
	seen := map[string]bool{}
	err := t.walk(ctx, rel, 0, rep, func(e walkEntry) error {
		if e.Regular && glob.match(e.Rel) { // a FIFO or device is never read
			seen[e.Rel] = true
			files <- e
		}
		return nil
	})
	for _, s := range t.changeset.stagedPaths(rel) {
		if !seen[s] && glob.match(s) {
			files <- walkEntry{Rel: s, Abs: t.roots.absOf(s)}
		}
	}
	return err
}

// order sorts the matches by path and line, keeps the first
// maxSearchMatches, and sorts the files too big to search.
func (f *searchFound) order() {
	sort.Slice(f.matches, func(i, j int) bool {
		if f.matches[i].Path != f.matches[j].Path {
			return f.matches[i].Path < f.matches[j].Path
		}
		return f.matches[i].Line < f.matches[j].Line
	})
	if len(f.matches) > maxSearchMatches {
		f.matches = f.matches[:maxSearchMatches]
	}
	sort.Strings(f.tooBig)
}

// searchFile matches one file as the view sees it; abs is what rel resolves
// to (a symlink's target), whose staged text or buffer is the one to search.
// A file read from disk is scanned in the worker's buffer, and turned into a
// string only when it matches: most files don't. read is how many bytes
// were searched; a file over limit is not, and tooBig is its size.
func (t *Tree) searchFile(rel, abs string, re *regexp.Regexp, buf *[]byte, limit int) (hits []searchMatch, read, tooBig int64) {
	key := rel
	if r, ok := t.roots.relOf(abs); ok {
		key = r
	}
	if text, ok := t.view.unsavedText(abs, key); ok {
		if len(text) > limit {
			return nil, 0, int64(len(text))
		}
		if isBinary(text[:min(len(text), 8000)]) || !re.MatchString(text) {
			return nil, int64(len(text)), 0
		}
		return matchLines(rel, text, re), int64(len(text)), 0
	}
	data, size, err := readInto(abs, buf, limit)
	switch {
	case err != nil:
		return nil, 0, 0
	case size > int64(limit):
		return nil, int64(len(data)), size
	case isBinary(data[:min(len(data), 8000)]) || !re.Match(data):
		return nil, int64(len(data)), 0
	}
	return matchLines(rel, string(data), re), int64(len(data)), 0
}

// readInto reads a regular file into *buf, growing it as needed, unless it
// is over limit: size is the file's size, or more than limit when it grew
// past it while read (data is then what was read, at most limit+1 bytes).
func readInto(path string, buf *[]byte, limit int) (data []byte, size int64, err error) {
	f, fi, err := openRegularInfo(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if fi.Size() > int64(limit) {
		return nil, fi.Size(), nil
	}
	b := slices.Grow((*buf)[:0], int(fi.Size())+1) // +1: the end is seen without a second grow
	b, err = appendUpTo(f, b, limit+1)
	if err != nil {
		return nil, 0, err
	}
	*buf = b
	return b, max(fi.Size(), int64(len(b))), nil
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
