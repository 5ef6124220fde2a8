package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Change is one file of a run's changeset: what it was when the agent first
// touched it and what the agent wants it to be.
type Change struct {
	Path    string // slash-separated, as Resolve's rel: with several roots, the root's name first
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

// Changeset is a run's staged changes, the writes of its tools: per file,
// what it was when first staged (its text, and the buffer version it was
// read at) and what it is to become. Nothing is written to the user's
// files; the changeset becomes the proposal (Proposal), and is what reads
// see first (View). Safe for concurrent use.
type Changeset struct {
	roots   *RootSet
	overlay Overlay // where a first stage reads the original before disk; may be nil

	mu      sync.Mutex         // guards changes
	changes map[string]*Change // by the roots' key of the path
}

func newChangeset(roots *RootSet, overlay Overlay) *Changeset {
	return &Changeset{roots: roots, overlay: overlay, changes: map[string]*Change{}}
}

// Stage records newText as the content of path. The first stage of a file
// remembers what it was (text, buffer version, whether it existed), which the
// proposal needs to detect a stale buffer later. Paths under .git are refused
// here, so that every writer is refused (ErrGitDir).
func (cs *Changeset) Stage(p, newText string) (Change, error) {
	abs, rel, err := cs.roots.Resolve(p)
	if err != nil {
		return Change{}, err
	}
	if err := refuseGitDir(p, rel); err != nil {
		return Change{}, err
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return Change{}, fmt.Errorf("%s is a directory", rel)
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.changes[cs.roots.key(rel)]
	if !ok {
		c = &Change{Path: rel, AbsPath: abs}
		f, err := readBase(cs.overlay, abs, rel)
		switch {
		case err == nil:
			c.Original, c.Existed, c.Version, c.HasVersion = f.Text, true, f.Version, f.HasVersion
		case !errors.Is(err, fs.ErrNotExist):
			return Change{}, err
		}
		cs.changes[cs.roots.key(rel)] = c
	}
	c.New = newText
	return *c, nil
}

// staged is the view of rel that a staged change gives, if there is one.
func (cs *Changeset) staged(rel string) (File, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.changes[cs.roots.key(rel)]
	if !ok {
		return File{}, false
	}
	return File{Path: rel, Text: c.New, Version: c.Version, HasVersion: c.HasVersion, Source: FromStaged}, true
}

// Changes returns the staged changes that differ from their original, sorted by
// path. They are copies: the caller may keep them after the run.
func (cs *Changeset) Changes() []Change {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	out := make([]Change, 0, len(cs.changes))
	for _, c := range cs.changes {
		if c.Existed && c.New == c.Original {
			continue
		}
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Proposal snapshots the staged changes.
func (cs *Changeset) Proposal() Proposal { return Proposal{Changes: cs.Changes()} }

// stagedPaths lists files staged (created or edited) under dir ("." for
// all of them, in every root).
func (cs *Changeset) stagedPaths(dir string) []string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var out []string
	prefix := cs.roots.key(dir) + "/"
	for key, c := range cs.changes {
		if dir == "." || strings.HasPrefix(key, prefix) {
			out = append(out, c.Path)
		}
	}
	sort.Strings(out)
	return out
}

// Restore replaces the staged changes with changes (a snapshot from Changes).
func (cs *Changeset) Restore(changes []Change) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.changes = map[string]*Change{}
	for _, c := range changes {
		c := c
		cs.changes[cs.roots.key(c.Path)] = &c
	}
}
