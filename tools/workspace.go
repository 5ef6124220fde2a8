package tools

import (
	"errors"
	"sync"
)

// Workspace is the view that tools read and write. Reads see, in order, the
// changes staged by this run, the editor's open buffers, then disk. Writes are
// staged, never written. Every path is confined to the roots after resolving
// "..", absolute paths and symlinks (roots.go says how paths name them when
// there are several). Safe for concurrent use.
type Workspace struct {
	*RootSet
	*View
	*Changeset
	*Tree

	mu          sync.Mutex // guards sandboxOpts and the folders' views
	sandboxOpts SandboxOptions
}

// NewWorkspace opens a view of root. overlay may be nil.
func NewWorkspace(root string, overlay Overlay) (*Workspace, error) {
	return NewWorkspaceRoots([]Root{{Dir: root}}, 0, overlay)
}

// NewWorkspaceRoots opens a view of several roots, runs starting in
// roots[current]. A root without a name takes RootName's; a root whose
// folder is one listed before it (through a link) is left out. overlay
// may be nil.
func NewWorkspaceRoots(roots []Root, current int, overlay Overlay) (*Workspace, error) {
	rs, err := newRootSet(roots, current)
	if err != nil {
		return nil, err
	}
	cs := newChangeset(rs, overlay)
	v := &View{roots: rs, overlay: overlay, changeset: cs}
	return &Workspace{
		RootSet:   rs,
		View:      v,
		Changeset: cs,
		Tree:      &Tree{roots: rs, view: v, changeset: cs},
	}, nil
}

// Close removes the commands' views, if any were made. The workspace stays usable.
func (w *Workspace) Close() error {
	w.mu.Lock()
	var views []commandView
	for _, f := range w.folders {
		if f.view != nil {
			views = append(views, f.view)
			f.view = nil
		}
	}
	w.mu.Unlock()
	var errs []error
	for _, v := range views {
		errs = append(errs, v.Close())
	}
	return errors.Join(errs...)
}
