package tools

import (
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// SetRoot makes allowlisted commands that Check finds would read outside
// root need approval. root is the directory commands run in, absolute with
// symlinks resolved (Workspace.Root); "" turns path checks off. A
// workspace's commands are checked with CheckIn, which names its roots.
func (p *Policy) SetRoot(root string) {
	if root != "" {
		root = filepath.Clean(root)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.root = root
}

// outsideArg returns the index of the first argument of an allowlisted
// command that names a path outside the root, or -1. Every operand and every option value after
// "=" counts as a path: telling a grep pattern from a file name would take a
// model of each program, and a false alarm costs one approval.
func (c *checker) outsideArg(args []string) int {
	if c.dir == "" {
		return -1
	}
	for i, a := range args {
		p := a
		if strings.HasPrefix(a, "-") && a != "-" {
			var ok bool
			if _, p, ok = strings.Cut(a, "="); !ok {
				continue
			}
		}
		if c.outside(p) {
			return i
		}
	}
	return -1
}

// inputRedirect checks what `cmd < file` reads.
func (c *checker) inputRedirect(simple *allowance, w *syntax.Word) {
	if c.dir == "" {
		return
	}
	target, ok := literal(w)
	switch {
	case !ok || hasBraces(w):
		c.flag(simple, fmt.Sprintf("reads %s through a redirection, computed at run time", printWord(w)))
	case c.outside(target):
		c.flag(simple, fmt.Sprintf("reads %s through a redirection, outside the workspace", printWord(w)))
	}
}

// outside reports whether reading p from the command's dir could leave the roots, lexically
// or through a symlink. The system resolves a symlink before a ".." that
// follows it (link/.. is the link target's parent), so the path is resolved
// up to its last ".." before it is cleaned.
func (c *checker) outside(p string) bool {
	switch {
	case p == "" || p == "-" || harmlessDevices[p]:
		return false
	case strings.HasPrefix(p, "~"):
		return true // the home directory, or another user's
	}
	// On Windows a path rooted without a drive (/c/Users, \x) is not
	// relative to the workspace, whatever filepath.IsAbs says.
	p = hostPaths.native(p, c.dir)
	if !filepath.IsAbs(p) {
		p = c.dir + string(filepath.Separator) + p
	}
	if !c.inRoots(filepath.Clean(p)) {
		return true
	}
	if head, tail, ok := cutLastDotDot(p); ok {
		if real, err := filepath.EvalSymlinks(head); err == nil {
			p = filepath.Join(real, tail)
		}
	}
	real, err := resolveExisting(filepath.Clean(p))
	return err != nil || !c.inRoots(real)
}

// inRoots reports whether p is in one of the roots.
func (c *checker) inRoots(p string) bool {
	for _, r := range c.roots {
		if within(r, p) {
			return true
		}
	}
	return false
}

// cutLastDotDot splits p after its last ".." element.
func cutLastDotDot(p string) (head, tail string, ok bool) {
	sep := string(filepath.Separator)
	elems := strings.Split(p, sep)
	for i := len(elems) - 1; i >= 0; i-- {
		if elems[i] == ".." {
			return strings.Join(elems[:i+1], sep), strings.Join(elems[i+1:], sep), true
		}
	}
	return "", "", false
}

// harmlessDevices are paths outside the workspace that hold nothing of the user's.
var harmlessDevices = map[string]bool{"/dev/null": true, "/dev/stdin": true, "/dev/zero": true, "/dev/urandom": true, "/dev/random": true}
