package tools

import (
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
	Deleted    bool
}

// Diff renders the change as a unified diff with a/ and b/ labels; a new file
// comes from /dev/null, a deleted one goes to it.
func (c Change) Diff() string {
	from, to := "a/"+c.Path, "b/"+c.Path
	if !c.Existed {
		from = "/dev/null"
	}
	newText := c.New
	if c.Deleted {
		to, newText = "/dev/null", ""
	}
	d := udiff.Unified(from, to, c.Original, newText)
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

// Diff renders every change as one unified diff.
func (p Proposal) Diff() string {
	var b strings.Builder
	for _, c := range p.Changes {
		b.WriteString(c.Diff())
	}
	return b.String()
}

// Proposal snapshots the staged changes.
func (w *Workspace) Proposal() Proposal { return Proposal{Changes: w.Changes()} }
