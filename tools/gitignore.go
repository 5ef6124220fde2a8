package tools

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
)

// ignoreRule is one line of a .gitignore, compiled. base is the directory of
// the .gitignore (slash-separated, "" for the root).
type ignoreRule struct {
	base    string
	re      *regexp.Regexp
	negate  bool
	dirOnly bool
}

// ignoreRules are the rules in force for a walk, in file order; the last
// matching rule decides, as in git.
type ignoreRules []ignoreRule

// parseGitignore compiles the rules of one .gitignore found in base.
func parseGitignore(base string, data []byte) ignoreRules {
	var rules ignoreRules
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if !strings.HasSuffix(line, `\ `) {
			line = strings.TrimRight(line, " \t")
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{base: base}
		if strings.HasPrefix(line, "!") {
			r.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		// A pattern with a slash anywhere but the end is anchored to base;
		// one without matches a name at any depth.
		anchored := strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		expr := globToRegexp(line)
		if !anchored {
			expr = "(?:.*/)?" + expr
		}
		re, err := regexp.Compile("^" + expr + "$")
		if err != nil {
			continue // a line git would not understand either
		}
		r.re = re
		rules = append(rules, r)
	}
	return rules
}

// globToRegexp translates gitignore's glob (*, ?, [...], **) to a regexp.
func globToRegexp(glob string) string {
	var b strings.Builder
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '*' && strings.HasPrefix(glob[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case c == '*' && strings.HasPrefix(glob[i:], "**") && i+2 == len(glob):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(glob[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := glob[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		case c == '\\' && i+1 < len(glob):
			i++
			b.WriteString(regexp.QuoteMeta(string(glob[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// ignored reports whether rel (slash-separated, relative to the root) is ignored.
func (rs ignoreRules) ignored(rel string, isDir bool) bool {
	ignored := false
	for _, r := range rs {
		if r.dirOnly && !isDir {
			continue
		}
		sub := rel
		if r.base != "" {
			if !strings.HasPrefix(rel, r.base+"/") {
				continue
			}
			sub = rel[len(r.base)+1:]
		}
		if r.re.MatchString(sub) {
			ignored = !r.negate
		}
	}
	return ignored
}
