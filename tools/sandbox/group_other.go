//go:build !linux

package sandbox

// Group bounds language servers together where cgroups exist (Linux);
// here it bounds nothing together, and Bounded says so.
type Group struct{ limits Limits }

// NewGroup makes a group; here it bounds nothing together.
func NewGroup(l Limits) (*Group, error) { return &Group{limits: l.withDefaults()}, nil }

// Bounded reports whether the group's limits hold: never here.
func (g *Group) Bounded() bool { return false }

// Close does nothing here.
func (g *Group) Close() error { return nil }
