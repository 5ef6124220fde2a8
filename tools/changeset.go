package tools

import (
	"fmt"
	"strings"

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

// Proposal snapshots the staged changes.
func (w *Workspace) Proposal() Proposal { return Proposal{Changes: w.Changes()} }
