package langserver

import (
	"path/filepath"
	"strings"

	"go.lsp.dev/uri"
)

// Relocated is p, a server that sees the workspace's folder root at
// seenAt (a run-private server below the sandbox's level full runs in the
// commands' copy of it). Its client maps paths where it makes and reads
// URIs, so that the client and the run know only the workspace's paths,
// and a document's text reaches the server as it is.
func Relocated(p Process, root, seenAt string) Process {
	return &relocated{Process: p, paths: pathMap{workspace: filepath.Clean(root), server: filepath.Clean(seenAt)}}
}

type relocated struct {
	Process
	paths pathMap
}

// pathMap maps a folder of the workspace to where a server sees it; the
// zero pathMap maps nothing.
type pathMap struct{ workspace, server string }

// toServer is path as the server sees it.
func (m pathMap) toServer(path string) string { return swapPrefix(path, m.workspace, m.server) }

// fromServer is the workspace's path for what the server calls path.
func (m pathMap) fromServer(path string) string { return swapPrefix(path, m.server, m.workspace) }

// inText is a server's message with its folder named as the workspace's.
func (m pathMap) inText(s string) string {
	if m.server == "" || !strings.Contains(s, m.server) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, m.server)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(m.server)
		b.WriteString(s[:i])
		if end == len(s) || s[end] == filepath.Separator || strings.ContainsRune(`"':) `, rune(s[end])) {
			b.WriteString(m.workspace)
		} else {
			b.WriteString(m.server) // a folder that only begins the same
		}
		s = s[end:]
	}
}

// swapPrefix replaces the folder from at the start of path by to; a path
// that only begins like from (from-old/x) is left alone.
func swapPrefix(path, from, to string) string {
	if from == "" || from == to {
		return path
	}
	if path == from {
		return to
	}
	if rest, ok := strings.CutPrefix(path, from); ok && strings.HasPrefix(rest, string(filepath.Separator)) {
		return to + rest
	}
	return path
}

// uriOf is the URI the server knows path by.
func (c *Client) uriOf(path string) uri.URI { return uri.File(c.paths.toServer(path)) }

// pathOf is the workspace's path of a URI the server sent; "" for a URI
// that names no file.
func (c *Client) pathOf(u uri.URI) string {
	if u == "" || !strings.HasPrefix(string(u), "file:") {
		return ""
	}
	return c.paths.fromServer(u.FsPath())
}
