package tools

import (
	"bytes"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/agent-lsp/agent-lsp/tools/projectfile"
)

// Which files the tools see is what git would not ignore. The patterns come
// from the user's excludes file, the repository's info/exclude and every
// .gitignore from the root down (see gitrepo.go for where the first two live),
// and are matched by path.Match (a name) and go-git's gitignore package (a
// path), called the way that agrees with git (gitPattern); the corpus test
// (gitignore_test.go) holds them to `git ls-files`.

// Limits on what ignore files may cost. One file is read up to
// maxIgnoreFileBytes (then up to its last line break before that), and the
// files in force at one point of a walk (the excludes files and the
// .gitignore of each directory from the root down) weigh at most
// maxIgnoreInForce, a file weighing its text and patternOverhead more a
// pattern: a file past that is cut to fit. A cut file's later patterns do
// not apply, so a walk may then show what git would ignore (or hide what a
// later "!" would have kept); the tools say so.
const (
	maxIgnoreFileBytes = 1 << 20
	maxIgnoreInForce   = 32 << 20
	patternOverhead    = 256 // about what a parsed pattern holds besides its text
)

// ignoreFile is the patterns of one ignore file, in the order written, and
// the directory they apply in.
type ignoreFile struct {
	source   string   // the file, for a note that it was cut
	domain   []string // the directory holding it, relative to the root; nil for the root
	patterns []gitPattern
	weight   int  // as maxIgnoreInForce counts: the text read, and patternOverhead a pattern
	cut      bool // only its first patterns were kept
}

// holds reports whether path (segments relative to the root) is below f's
// directory, where its patterns apply.
func (f *ignoreFile) holds(path []string) bool {
	if len(path) <= len(f.domain) {
		return false
	}
	for i, d := range f.domain {
		if path[i] != d {
			return false
		}
	}
	return true
}

// ignoreRules are the ignore files in force at one point of a walk, lowest
// priority first: the user's excludes file, info/exclude, then the
// .gitignore of each directory from the root down to where the walk is. The
// last pattern matching a path decides, as in git. A walk adds a
// directory's file when it enters the directory and drops it (reset to a
// mark) when it leaves, so a file costs nothing outside its own subtree and
// a path is matched against the patterns of its own directories only, as
// git does. The zero value has none. Rules serve one walk, one goroutine.
type ignoreRules struct {
	files    []ignoreFile
	weight   int      // of files, at most maxIgnoreInForce
	segments []string // ignored's scratch
}

// add puts f above the files in force, cut to the patterns that fit under
// maxIgnoreInForce; cut says f was cut, here or when it was read.
func (r *ignoreRules) add(f ignoreFile) (cut bool) {
	if over := f.weight - r.room(); over > 0 {
		drop := min((over+patternOverhead-1)/patternOverhead, len(f.patterns))
		f.patterns, f.weight, f.cut = f.patterns[:len(f.patterns)-drop], f.weight-drop*patternOverhead, true
		if f.weight > r.room() { // its text alone is too much
			f.patterns, f.weight = nil, 0
		}
	}
	if len(f.patterns) > 0 || f.cut {
		r.files = append(r.files, f)
		r.weight += f.weight
	}
	return f.cut
}

// room is what more patterns may weigh.
func (r *ignoreRules) room() int { return max(maxIgnoreInForce-r.weight, 0) }

// mark is what reset returns to: the files in force now.
func (r *ignoreRules) mark() int { return len(r.files) }

// reset drops the files added since mark returned m.
func (r *ignoreRules) reset(m int) {
	for i := m; i < len(r.files); i++ {
		r.weight -= r.files[i].weight
		r.files[i] = ignoreFile{}
	}
	r.files = r.files[:m]
}

// cutFiles lists the sources of the files in force that were cut.
func (r *ignoreRules) cutFiles() []string {
	var out []string
	for _, f := range r.files {
		if f.cut {
			out = append(out, f.source)
		}
	}
	return out
}

// ignored reports whether rel (slash-separated, relative to the root) is
// ignored. Its parent directories are not looked at: a walk never enters an
// ignored directory, and git never re-includes what is inside one.
func (r *ignoreRules) ignored(rel string, isDir bool) bool {
	if r.weight == 0 {
		return false
	}
	r.segments = r.segments[:0]
	for s := range strings.SplitSeq(rel, "/") {
		r.segments = append(r.segments, s)
	}
	for i := len(r.files) - 1; i >= 0; i-- {
		f := &r.files[i]
		if !f.holds(r.segments) {
			continue
		}
		in := r.segments[len(f.domain):]
		for j := len(f.patterns) - 1; j >= 0; j-- {
			if p := &f.patterns[j]; p.matches(in, isDir) {
				return !p.negate
			}
		}
	}
	return false
}

// readIgnoreFile reads a file of patterns relative to domain (nil for the
// root): the user's excludes file and info/exclude, which are not in the
// tree, come this way.
func readIgnoreFile(file string, domain []string) ignoreFile {
	return parsedIgnore(file, filepath.Dir(file), filepath.Base(file), domain, maxIgnoreInForce)
}

// readGitignore reads the .gitignore of the directory dirRel (slash-
// separated, "." for the root) of root, its patterns weighing at most room.
func readGitignore(root, dirRel string, room int) ignoreFile {
	var domain []string
	rel := ".gitignore"
	if dirRel != "." && dirRel != "" {
		domain = strings.Split(dirRel, "/")
		rel = dirRel + "/.gitignore"
	}
	return parsedIgnore(rel, root, rel, domain, room)
}

func parsedIgnore(source, root, rel string, domain []string, room int) ignoreFile {
	data, cut, err := readIgnoreData(root, rel, projectfile.ReadNoFollow)
	if err != nil {
		return ignoreFile{}
	}
	return parsedIgnoreData(source, data, cut, domain, room)
}

func parsedIgnoreData(source string, data []byte, cut bool, domain []string, room int) ignoreFile {
	f := parseIgnore(data, room)
	f.source, f.domain, f.cut = source, domain, f.cut || cut
	return f
}

// readIgnoreData is the one read of an ignore file: rel (slash-separated)
// beneath the directory root, as every file agent-lsp takes from a
// workspace is read (tools/projectfile, by read: ReadNoFollow for a
// worktree's .gitignore, which git never opens through a link; Read for
// info/exclude, followed while it stays in the repository's directory), at
// most maxIgnoreFileBytes of it, cut after its last whole line when there
// is more (cut is then true). A missing or refused file is an error, taken
// for no patterns.
func readIgnoreData(root, rel string, read func(root, rel string, limit int64) ([]byte, bool, error)) (data []byte, cut bool, err error) {
	data, cut, err = read(root, rel, maxIgnoreFileBytes)
	if err != nil {
		return nil, false, err
	}
	if cut {
		data = data[:bytes.LastIndexByte(data, '\n')+1]
	}
	return data, cut, nil
}

// parseIgnore splits an ignore file into patterns as git's dir.c does: a BOM
// and each line's CR dropped, lines starting with # skipped, trailing spaces
// trimmed unless escaped with a backslash (tabs are kept). The patterns
// share one copy of the text, which weighs what it holds, and each pattern
// patternOverhead more: it keeps the first patterns that fit in room, and
// marks the file cut if there were more.
func parseIgnore(data []byte, room int) ignoreFile {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var f ignoreFile
	if len(data) > room {
		data, f.cut = data[:bytes.LastIndexByte(data[:room], '\n')+1], true
	}
	text := string(data)
	f.weight = len(text)
	f.patterns = make([]gitPattern, 0, min(strings.Count(text, "\n")+1, (room-len(text))/patternOverhead))
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		line = strings.TrimSuffix(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		var p gitPattern
		if !p.parse(trimTrailingSpaces(line)) {
			continue
		}
		if f.weight+patternOverhead > room {
			f.cut = true
			break
		}
		f.patterns = append(f.patterns, p)
		f.weight += patternOverhead
	}
	return f
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

type patternKind uint8

const (
	byName   patternKind = iota // no slash: the last name, at any depth
	byPath                      // a fixed number of segments from the domain
	byInside                    // "x/**": anything inside what x matches
	byTail                      // "x/**/y": y matches the end, x the start
)

// nameTest is how a byName pattern matches the last name.
type nameTest uint8

const (
	nameEqual  nameTest = iota // text is the name: no wildcards
	nameSuffix                 // "*" then text, which has no wildcards
	nameGlob                   // text is a path.Match pattern
)

// gitPattern is one line of an ignore file. A name (byName) is matched by
// path.Match, as git's wildmatch would (wildmatch.go rewrites it), or
// compared as it is when it has no wildcards ("*.ext" is a suffix). The
// segments of a path pattern are matched by go-git's patterns, each called
// the way that agrees with git:
//   - go-git accepts a path pattern matching a prefix of the path ("!a/b"
//     re-including a/b/c): byPath compares the lengths first;
//   - go-git's "**" never backtracks and lets "x/**" match x itself: the
//     pattern is cut at its last "**", the tail matched on the path's last
//     segments and the head ("x/**", x matching a prefix) on the rest.
//
// A head with two "**" and more than one segment between them ("**/a/b/**/c")
// still matches without backtracking, as go-git does.
//
// A byPath pattern is compiled when a path of its length first comes: most
// never meet one. Patterns are small (the walk holds many), and serve one
// goroutine: matches may compile.
type gitPattern struct {
	negate, dirOnly bool
	kind            patternKind
	test            nameTest // byName
	n               int      // segments of the path (byPath) or of tail (byTail)
	text            string   // byName: as test says; byPath: the glob, until compiled
	glob            *pathGlobs
}

// pathGlobs are a path pattern's compiled parts.
type pathGlobs struct {
	segments []string          // byPath without wildcards
	whole    gitignore.Pattern // byPath otherwise
	head     gitignore.Pattern // byInside, byTail; nil: any start
	tail     gitignore.Pattern // byTail
}

// parse reads one trimmed line into p, or reports false for a line that can
// match nothing (blank, a bare "!", an unclosed bracket, an unknown class).
func (p *gitPattern) parse(line string) bool {
	if rest, ok := strings.CutPrefix(line, "!"); ok {
		p.negate, line = true, rest
	}
	if rest, ok := strings.CutSuffix(line, "/"); ok {
		p.dirOnly, line = true, rest
	}
	if line == "" {
		return false
	}
	glob, ok := wildmatchToMatch(line)
	if !ok {
		return false
	}
	const wild = `*?[\`
	if !strings.Contains(line, "/") {
		p.kind, p.text = byName, glob
		switch {
		case !strings.ContainsAny(glob, wild):
			p.test = nameEqual
		case len(glob) > 1 && glob[0] == '*' && !strings.ContainsAny(glob[1:], wild):
			p.test, p.text = nameSuffix, glob[1:]
		default:
			p.test = nameGlob
		}
		return true
	}
	glob = strings.TrimPrefix(glob, "/")
	last, n := -1, 0
	for seg := range strings.SplitSeq(glob, "/") {
		switch seg {
		case "":
			return false // "a//b": no path has an empty segment
		case "**":
			last = n
		}
		n++
	}
	if last < 0 {
		p.kind, p.n, p.text = byPath, n, glob
		return true
	}
	segs := strings.Split(glob, "/")
	p.glob = &pathGlobs{}
	switch {
	case last == len(segs)-1:
		p.kind = byInside
	default:
		p.kind, p.n, p.glob.tail = byTail, len(segs)-last-1, anchored(segs[last+1:])
	}
	if head := segs[:last]; !allStars(head) {
		p.glob.head = anchored(append(head[:len(head):len(head)], "**"))
	}
	return true
}

// compile makes a byPath pattern's glob.
func (p *gitPattern) compile() *pathGlobs {
	if p.glob == nil {
		segs := strings.Split(p.text, "/")
		p.glob = &pathGlobs{}
		if strings.ContainsAny(p.text, `*?[\`) {
			p.glob.whole = anchored(segs)
		} else {
			p.glob.segments = segs
		}
		p.text = ""
	}
	return p.glob
}

// anchored is a go-git pattern for segments matched from the domain; the
// leading slash keeps go-git from reading one segment as a name pattern.
func anchored(segs []string) gitignore.Pattern {
	return gitignore.ParsePattern("/"+strings.Join(segs, "/"), nil)
}

func allStars(segs []string) bool {
	for _, s := range segs {
		if s != "**" {
			return false
		}
	}
	return true
}

// matches reports whether rel (at least one segment, relative to the
// directory of p's file) matches the whole pattern.
func (p *gitPattern) matches(rel []string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	hit := func(q gitignore.Pattern, path []string, isDir bool) bool {
		return q.Match(path, isDir) != gitignore.NoMatch
	}
	switch p.kind {
	case byName:
		name := rel[len(rel)-1]
		switch p.test {
		case nameEqual:
			return name == p.text
		case nameSuffix:
			return strings.HasSuffix(name, p.text)
		}
		ok, _ := path.Match(p.text, name)
		return ok
	case byPath:
		if len(rel) != p.n {
			return false
		}
		g := p.compile()
		if g.whole != nil {
			return hit(g.whole, rel, isDir)
		}
		for i, s := range g.segments {
			if rel[i] != s {
				return false
			}
		}
		return true
	case byInside:
		return p.glob.head == nil || len(rel) > 1 && hit(p.glob.head, rel[:len(rel)-1], true)
	}
	start := len(rel) - p.n
	if start < 0 || !hit(p.glob.tail, rel[start:], isDir) {
		return false
	}
	return p.glob.head == nil || start > 0 && hit(p.glob.head, rel[:start], true)
}
