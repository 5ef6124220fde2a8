package tools

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Change is one file of a run's changeset: what it was when the agent first
// touched it and what the agent wants it to be.
type Change struct {
	Path    string // slash-separated, relative to the workspace root
	AbsPath string
	// Original is the text the agent started from; Existed is false for a new file.
	Original string
	Existed  bool
	// Version is the editor buffer version Original was read at, when HasVersion;
	// otherwise Original came from disk.
	Version    int32
	HasVersion bool
	New        string
}

// Diff renders the change as a unified diff with a/ and b/ labels; a new file
// comes from /dev/null.
func (c Change) Diff() string {
	from, to := "a/"+c.Path, "b/"+c.Path
	if !c.Existed {
		from = "/dev/null"
	}
	d := udiff.Unified(from, to, c.Original, c.New)
	if d == "" && !c.Existed {
		// An empty new file has no lines to show; say it exists all the same.
		d = "--- /dev/null\n+++ " + to + "\n"
	}
	return d
}

// Proposal is the changeset of one run, in path order.
type Proposal struct {
	Changes []Change
}

// Empty reports whether the run changed nothing.
func (p Proposal) Empty() bool { return len(p.Changes) == 0 }

// Diff renders every change as one unified diff. A sensitive file's diff is
// preceded by a "# ⚠" line saying what it changes (patch and git apply skip
// such lines between files).
func (p Proposal) Diff() string {
	var b strings.Builder
	for _, c := range p.Changes {
		if why, ok := c.Sensitive(); ok {
			fmt.Fprintf(&b, "# ⚠ %s changes %s: apply only if you meant it\n", Printable(c.Path), why)
		}
		b.WriteString(c.Diff())
	}
	return b.String()
}

// Sensitive returns the changes that need the user's explicit approval.
func (p Proposal) Sensitive() []Change {
	var out []Change
	for _, c := range p.Changes {
		if _, ok := c.Sensitive(); ok {
			out = append(out, c)
		}
	}
	return out
}

// Sensitive says whether the change touches a sensitive file, and why.
func (c Change) Sensitive() (why string, ok bool) { return SensitivePath(c.Path) }

// sensitiveFiles change what an editor, the agent or CI runs or reads, by
// base name at any depth; sensitiveDirs do the same for every file under them.
var (
	sensitiveFiles = map[string]string{
		".agent-lsp.toml": "agent configuration",
		".mcp.json":       "the agent's tool servers (MCP), which it starts",
		".nvim.lua":       "editor configuration (Neovim runs it)",
		".nvimrc":         "editor configuration (Vim/Neovim run it)",
		".exrc":           "editor configuration (Vim/Neovim run it)",
		".dir-locals.el":  "editor configuration (Emacs directory variables)",
		".envrc":          "the shell environment (direnv runs it)",
		".gitmodules":     "git submodules (what git fetches)",
		".gitattributes":  "git attributes (filters and diff drivers git runs)",
		"agents.md":       "the agent's instructions",
	}
	sensitiveDirs = map[string]string{
		".vscode": "editor configuration (VS Code tasks and settings)",
		".helix":  "editor configuration (Helix)",
		".zed":    "editor configuration (Zed)",
		".idea":   "editor configuration (JetBrains run configurations)",
	}
)

// SensitivePath says whether writing rel (slash-separated, relative to the
// workspace root) changes what editors, the agent or CI run or read, and why.
// Names compare case-insensitively: on a case-insensitive file system
// .VSCode is .vscode.
func SensitivePath(rel string) (why string, ok bool) {
	parts := foldedParts(rel)
	if len(parts) == 0 {
		return "", false
	}
	if why, ok := sensitiveFiles[parts[len(parts)-1]]; ok {
		return why, true
	}
	for i, dir := range parts[:len(parts)-1] {
		if why, ok := sensitiveDirs[dir]; ok {
			return why, true
		}
		if dir == ".github" && i+1 < len(parts)-1 && parts[i+1] == "workflows" {
			return "CI workflows (GitHub Actions runs them)", true
		}
	}
	return "", false
}

// ErrGitDir refuses a write under .git: the repository's configuration and
// hooks run code the next time git runs.
var ErrGitDir = errors.New("writes under .git are refused")

// refuseGitDir refuses rel (as resolved) and p (as given, when relative: an
// absolute one holds the root's own names) when any component is .git, so
// neither a nested repository nor a symlink into or out of one gets by.
func refuseGitDir(p, rel string) error {
	paths := []string{rel}
	if !filepath.IsAbs(p) {
		paths = append(paths, filepath.ToSlash(p))
	}
	for _, s := range paths {
		for _, part := range foldedParts(s) {
			if part == ".git" {
				return fmt.Errorf("%w: %s (the repository's configuration and hooks run code)", ErrGitDir, rel)
			}
		}
	}
	return nil
}

// foldedParts splits a slash path into names compared as file systems that
// ignore case would: lower-cased, without the trailing dots and spaces
// Windows drops, and without the code points HFS+ ignores (as git does).
func foldedParts(p string) []string {
	var out []string
	for _, part := range strings.Split(p, "/") {
		part = strings.Map(func(r rune) rune {
			if hfsIgnorable(r) {
				return -1
			}
			return r
		}, part)
		part = strings.TrimRight(strings.ToLower(part), ". ")
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

func hfsIgnorable(r rune) bool {
	return r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff
}

// Proposal snapshots the staged changes.
func (w *Workspace) Proposal() Proposal { return Proposal{Changes: w.Changes()} }
