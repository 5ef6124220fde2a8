// Package fileuri converts between file URIs, as editors and agent clients
// send them, and the paths of the system agent-lsp runs on: the one place
// the LSP server and the ACP agent do so.
//
// On Windows, file:///C:/x, file:///c%3A/x and file:///c:/x all name C:\x
// (the drive letter upper-case, as Go's own path functions give it back),
// and file://server/share/x names \\server\share\x (UNC). Elsewhere
// file:///x names /x; a URI with a host names another machine and is
// refused, except localhost. The conversions take the system as a
// parameter, so every system's rules are tested everywhere; Host is the
// one this binary runs on.
package fileuri

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"go.lsp.dev/uri"
)

// System is how a system spells file paths.
type System int

const (
	// POSIX: one root, "/" between names (Linux, macOS).
	POSIX System = iota
	// Windows: drive letters and UNC shares, "\" between names.
	Windows
)

// ErrNotFile is why a URI that names no local file is refused.
var ErrNotFile = errors.New("not a local file URI")

// Path is ToPath on the host system.
func Path(u uri.URI) (string, error) { return ToPath(u, Host) }

// URI is FromPath on the host system.
func URI(p string) uri.URI { return FromPath(p, Host) }

// ToPath maps a file URI to the absolute, cleaned path it names on sys.
func ToPath(u uri.URI, sys System) (string, error) {
	if u == "" {
		return "", fmt.Errorf("empty URI: %w", ErrNotFile)
	}
	if u.Scheme() != "file" {
		return "", fmt.Errorf("%s: %w", u, ErrNotFile)
	}
	host, p := u.Authority(), u.Path()
	if strings.EqualFold(host, "localhost") {
		host = ""
	}
	if sys == Windows {
		return windowsPath(u, host, p)
	}
	if host != "" || !strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%s: %w", u, ErrNotFile)
	}
	return path.Clean(p), nil
}

// windowsPath is ToPath for Windows: a drive path (/C:/x) or a share
// (//host/share/x), never a device path (\\.\, \\?\).
func windowsPath(u uri.URI, host, p string) (string, error) {
	p = strings.ReplaceAll(p, `\`, "/")
	if strings.ContainsRune(p, 0) || strings.ContainsRune(host, 0) {
		return "", fmt.Errorf("%s: %w", u, ErrNotFile)
	}
	if host != "" {
		if host == "." || host == "?" || strings.ContainsAny(host, `/\:`) {
			return "", fmt.Errorf("%s: %w (a device path)", u, ErrNotFile)
		}
		share, rest, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		if share == "" {
			return "", fmt.Errorf("%s: %w (a share needs a name)", u, ErrNotFile)
		}
		return `\\` + host + `\` + share + toBackslash(path.Clean("/"+rest)), nil
	}
	if len(p) >= 3 && p[0] == '/' && isLetter(p[1]) && p[2] == ':' {
		p = p[1:]
	}
	if len(p) < 2 || !isLetter(p[0]) || p[1] != ':' || (len(p) > 2 && p[2] != '/') {
		return "", fmt.Errorf("%s: %w (no drive letter)", u, ErrNotFile)
	}
	return strings.ToUpper(p[:1]) + ":" + toBackslash(path.Clean("/"+p[2:])), nil
}

// FromPath is the file URI of an absolute path on sys, spelt as VS Code
// spells it (file:///c%3A/x for C:\x), which every client reads.
func FromPath(p string, sys System) uri.URI {
	if sys == Windows {
		return uri.FileFor(uri.PlatformWindows, p)
	}
	return uri.FileFor(uri.PlatformPOSIX, p)
}

func toBackslash(p string) string { return strings.ReplaceAll(p, "/", `\`) }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// ParsePath is Path of a URI given as text, percent-encoded or not.
func ParsePath(s string) (string, error) {
	u, err := uri.Parse(s)
	if err != nil {
		return "", fmt.Errorf("%q: %w", s, ErrNotFile)
	}
	return Path(u)
}
