package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// pathStyle is how a system spells and compares the paths a model gives,
// as far as confining them to the workspace needs: the rules are plain
// string functions, so every system's are tested everywhere, and hostPaths
// (pathstyle_*.go) is this system's.
type pathStyle struct {
	// windows: drive letters (C:\) and shares (\\server\share), "\" and
	// "/" both separate names, and some names are not files (CON, a:b).
	windows bool
	// foldCase: names that differ only in case name one file, as on the
	// usual macOS and Windows volumes. A workspace finds out for its own
	// volume (caseInsensitive).
	foldCase bool
}

func (s pathStyle) sep() string {
	if s.windows {
		return `\`
	}
	return "/"
}

// native turns a model's spelling of a path into the system's. On Windows
// "/" becomes "\", the Git Bash (MSYS) form of a drive, /c/Users/me,
// becomes C:\Users\me, and a path rooted without a drive (\src) is on the
// workspace root's drive. Elsewhere a path is taken as it is ("\" is a
// character of a file name there).
func (s pathStyle) native(p, root string) string {
	if !s.windows {
		return p
	}
	p = strings.ReplaceAll(p, "/", `\`)
	switch {
	case len(p) >= 2 && p[0] == '\\' && isASCIILetter(p[1]) && (len(p) == 2 || p[2] == '\\'):
		return strings.ToUpper(p[1:2]) + `:\` + strings.TrimPrefix(p[2:], `\`)
	case strings.HasPrefix(p, `\`) && !strings.HasPrefix(p, `\\`):
		return windowsVolume(root) + p
	}
	return p
}

// windowsVolume is the drive (C:) or share (\\server\share) p starts with.
func windowsVolume(p string) string {
	if len(p) >= 2 && isASCIILetter(p[0]) && p[1] == ':' {
		return p[:2]
	}
	if strings.HasPrefix(p, `\\`) {
		host, rest, _ := strings.Cut(p[2:], `\`)
		share, _, _ := strings.Cut(rest, `\`)
		return `\\` + host + `\` + share
	}
	return ""
}

// windowsReserved are the device names Windows opens instead of a file
// of that name, with any extension (nul.txt is NUL).
var windowsReserved = map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true}

// check refuses what is not a plain file name on the system: on Windows a
// ":" past the drive (an alternate data stream, C:x relative to a drive's
// current dir), characters Windows forbids, device names (CON, NUL, COM1
// …, whatever the extension), and names ending in a dot or a space, which
// Windows drops (so a.txt. would be a.txt).
func (s pathStyle) check(p string) error {
	if !s.windows {
		return nil
	}
	vol := windowsVolume(p)
	rest := strings.TrimPrefix(p, vol)
	if len(vol) == 2 && rest != "" && rest[0] != '\\' && rest[0] != '/' {
		return fmt.Errorf("%q is relative to the current directory of drive %s", p, vol)
	}
	for _, name := range strings.FieldsFunc(rest, func(r rune) bool { return r == '\\' || r == '/' }) {
		if name == "." || name == ".." {
			continue
		}
		if i := strings.IndexFunc(name, func(r rune) bool { return r < 32 || strings.ContainsRune(`<>:"|?*`, r) }); i >= 0 {
			return fmt.Errorf("%q: %q is not a file name on Windows", p, name)
		}
		if strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
			return fmt.Errorf("%q: Windows drops the dot or space that ends %q", p, name)
		}
		stem, _, _ := strings.Cut(strings.ToUpper(name), ".")
		stem = strings.TrimRight(stem, " ")
		if windowsReserved[stem] || (len(stem) == 4 && (strings.HasPrefix(stem, "COM") || strings.HasPrefix(stem, "LPT")) && stem[3] >= '0' && stem[3] <= '9') {
			return fmt.Errorf("%q: %s is a device on Windows, not a file", p, name)
		}
	}
	return nil
}

// within reports whether p is root or below it, both clean and absolute
// in the system's spelling; with foldCase, whatever the case.
func (s pathStyle) within(root, p string) bool {
	prefix := root
	if !strings.HasSuffix(prefix, s.sep()) {
		prefix += s.sep()
	}
	if s.foldCase {
		return strings.EqualFold(p, root) || (len(p) > len(prefix) && strings.EqualFold(p[:len(prefix)], prefix))
	}
	return p == root || strings.HasPrefix(p, prefix)
}

// rel is p relative to root, slash-separated, for a p within root.
func (s pathStyle) rel(root, p string) string {
	if len(p) <= len(root) {
		return "."
	}
	r := strings.TrimPrefix(p[len(root):], s.sep())
	if s.windows {
		r = strings.ReplaceAll(r, `\`, "/")
	}
	return r
}

// key is what staged changes are looked up by: the relative path itself,
// or with foldCase one spelling for all its cases, so README.md and
// readme.md are one change to one file.
func (s pathStyle) key(rel string) string {
	if !s.foldCase {
		return rel
	}
	return strings.ToLower(rel)
}

// caseInsensitive reports whether the volume dir is on ignores case in
// names: a name in dir with its letters' case swapped names the same file.
// Without a name to try (no entry with a letter), it is fallback.
func caseInsensitive(dir string, fallback bool) bool {
	f, err := os.Open(dir)
	if err != nil {
		return fallback
	}
	names, _ := f.Readdirnames(64)
	f.Close()
	for _, name := range names {
		swapped := strings.Map(func(r rune) rune {
			if unicode.IsUpper(r) {
				return unicode.ToLower(r)
			}
			return unicode.ToUpper(r)
		}, name)
		if swapped == name {
			continue
		}
		a, err := os.Lstat(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		b, err := os.Lstat(filepath.Join(dir, swapped))
		return err == nil && os.SameFile(a, b)
	}
	return fallback
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
