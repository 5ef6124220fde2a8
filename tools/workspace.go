package tools

// Workspace is the view that tools read and write: one part per concern,
// each testable alone, whose methods are the Workspace's:
//
//   - RootSet: the roots, and Resolve, which confines every path to them
//     after resolving "..", absolute paths and symlinks (roots.go says how
//     paths name them when there are several);
//   - View: reads, which see, in order, the changes staged by this run,
//     the editor's open buffers, then disk;
//   - Changeset: writes, staged, never written, and the proposal they make;
//   - Tree: walking, listing and searching the roots, with ignore rules;
//   - Commands: commands, run in a sandboxed view of a root that the
//     workspace's Close removes.
//
// Safe for concurrent use.
type Workspace struct {
	*RootSet
	*View
	*Changeset
	*Tree
	*Commands
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
	t := &Tree{roots: rs, view: v, changeset: cs}
	return &Workspace{
		RootSet:   rs,
		View:      v,
		Changeset: cs,
		Tree:      t,
		Commands:  newCommands(rs, v, cs, t),
	}, nil
}
