package tools

import (
	"bytes"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Which files the tools see is what git would not ignore. The patterns come
// from the user's excludes file, the repository's info/exclude and every
// .gitignore from the root down (see gitrepo.go for where the first two live),
// and are matched by go-git's gitignore package. gitPattern wraps each of its
// patterns where go-git's matching differs from git's; the corpus test
// (gitignore_test.go) holds both to `git ls-files`.

// ignoreRules are the patterns in force at one point of a walk, lowest
// priority first: the user's excludes file, info/exclude, then each .gitignore
// from the root down. The last pattern matching a path decides, as in git.
// A walk only adds to them: a pattern's domain keeps it to its own directory.
type ignoreRules struct {
	patterns []gitignore.Pattern
	matcher  gitignore.Matcher // over patterns; nil while there are none
	segments []string          // ignored's scratch: rules serve one walk, one goroutine
}

func (r *ignoreRules) add(ps []gitignore.Pattern) {
	if len(ps) == 0 {
		return
	}
	r.patterns = append(r.patterns, ps...)
	r.matcher = gitignore.NewMatcher(r.patterns)
}

// ignored reports whether rel (slash-separated, relative to the root) is
// ignored. Its parent directories are not looked at: a walk never enters an
// ignored directory, and git never re-includes what is inside one.
func (r *ignoreRules) ignored(rel string, isDir bool) bool {
	if r.matcher == nil {
		return false
	}
	r.segments = r.segments[:0]
	for s := range strings.SplitSeq(rel, "/") {
		r.segments = append(r.segments, s)
	}
	return r.matcher.Match(r.segments, isDir)
}

// readIgnoreFile reads a file of patterns relative to domain (the directory
// holding a .gitignore, nil for the root). A missing or unreadable file has
// none; a symlink or a FIFO is neither followed nor waited on (git does not
// follow an in-tree .gitignore either).
func readIgnoreFile(file string, domain []string) []gitignore.Pattern {
	data, err := ReadRegular(file)
	if err != nil {
		return nil
	}
	return parseIgnore(data, domain)
}

// parseIgnore splits an ignore file into patterns as git's dir.c does: a BOM
// and each line's CR dropped, lines starting with # skipped, trailing spaces
// trimmed unless escaped with a backslash (tabs are kept).
func parseIgnore(data []byte, domain []string) []gitignore.Pattern {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var ps []gitignore.Pattern
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSuffix(line, "\n")
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "#") {
			continue
		}
		if p := newGitPattern(trimTrailingSpaces(line), domain); p != nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// trimTrailingSpaces is git's trim_trailing_spaces: "a \ " keeps its escaped
// space, "a  " loses both.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if end == len(s) {
				end = i
			}
		case '\\':
			i++
			fallthrough
		default:
			end = len(s)
		}
	}
	return s[:end]
}

type patternKind int

const (
	byName   patternKind = iota // no slash: the last name, at any depth
	byPath                      // a fixed number of segments from the domain
	byInside                    // "x/**": anything inside what x matches
	byTail                      // "x/**/y": y matches the end, x the start
)

// gitPattern is one line of an ignore file. Its segments are matched by
// go-git's patterns, each called the way that agrees with git:
//   - go-git matches a name pattern against every segment, so "!keep/" would
//     re-include everything under keep/: only the last segment is given;
//   - go-git accepts a path pattern matching a prefix of the path ("!a/b"
//     re-including a/b/c): byPath compares the lengths first;
//   - go-git's "**" never backtracks and lets "x/**" match x itself: the
//     pattern is cut at its last "**", the tail matched on the path's last
//     segments and the head ("x/**", x matching a prefix) on the rest.
//
// A head with two "**" and more than one segment between them ("**/a/b/**/c")
// still matches without backtracking, as go-git does.
type gitPattern struct {
	domain          []string
	negate, dirOnly bool
	kind            patternKind
	n               int               // segments of the path (byPath) or of tail (byTail)
	whole           gitignore.Pattern // byName, byPath
	head            gitignore.Pattern // byInside, byTail; nil: any start
	tail            gitignore.Pattern // byTail
}

// newGitPattern parses one trimmed line, or returns nil for a line that can
// match nothing (blank, a bare "!", an unclosed bracket, an unknown class).
func newGitPattern(line string, domain []string) *gitPattern {
	p := &gitPattern{domain: append([]string(nil), domain...)}
	if rest, ok := strings.CutPrefix(line, "!"); ok {
		p.negate, line = true, rest
	}
	if rest, ok := strings.CutSuffix(line, "/"); ok {
		p.dirOnly, line = true, rest
	}
	if line == "" {
		return nil
	}
	isPath := strings.Contains(line, "/")
	glob, ok := wildmatchToMatch(line)
	if !ok {
		return nil
	}
	if !isPath {
		p.kind, p.whole = byName, gitignore.ParsePattern(glob, nil)
		return p
	}
	segs := strings.Split(strings.TrimPrefix(glob, "/"), "/")
	if hasEmpty(segs) {
		return nil // "a//b": no path has an empty segment
	}
	last := -1
	for i, s := range segs {
		if s == "**" {
			last = i
		}
	}
	switch {
	case last < 0:
		p.kind, p.n, p.whole = byPath, len(segs), anchored(segs)
		return p
	case last == len(segs)-1:
		p.kind = byInside
	default:
		p.kind, p.n, p.tail = byTail, len(segs)-last-1, anchored(segs[last+1:])
	}
	if head := segs[:last]; !allStars(head) {
		p.head = anchored(append(head[:len(head):len(head)], "**"))
	}
	return p
}

// anchored is a go-git pattern for segments matched from the domain; the
// leading slash keeps go-git from reading one segment as a name pattern.
func anchored(segs []string) gitignore.Pattern {
	return gitignore.ParsePattern("/"+strings.Join(segs, "/"), nil)
}

func hasEmpty(segs []string) bool {
	for _, s := range segs {
		if s == "" {
			return true
		}
	}
	return false
}

func allStars(segs []string) bool {
	for _, s := range segs {
		if s != "**" {
			return false
		}
	}
	return true
}

// Match implements gitignore.Pattern.
func (p *gitPattern) Match(path []string, isDir bool) gitignore.MatchResult {
	if len(path) <= len(p.domain) || (p.dirOnly && !isDir) {
		return gitignore.NoMatch
	}
	for i, d := range p.domain {
		if path[i] != d {
			return gitignore.NoMatch
		}
	}
	if !p.matches(path[len(p.domain):], isDir) {
		return gitignore.NoMatch
	}
	if p.negate {
		return gitignore.Include
	}
	return gitignore.Exclude
}

// matches reports whether rel (at least one segment, relative to the
// domain) matches the whole pattern.
func (p *gitPattern) matches(rel []string, isDir bool) bool {
	hit := func(q gitignore.Pattern, path []string, isDir bool) bool {
		return q.Match(path, isDir) != gitignore.NoMatch
	}
	switch p.kind {
	case byName:
		return hit(p.whole, rel[len(rel)-1:], isDir)
	case byPath:
		return len(rel) == p.n && hit(p.whole, rel, isDir)
	case byInside:
		return p.head == nil || len(rel) > 1 && hit(p.head, rel[:len(rel)-1], true)
	}
	start := len(rel) - p.n
	if start < 0 || !hit(p.tail, rel[start:], isDir) {
		return false
	}
	return p.head == nil || start > 0 && hit(p.head, rel[:start], true)
}
