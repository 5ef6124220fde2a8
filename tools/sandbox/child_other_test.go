//go:build !linux

package sandbox

// childMode: the benchmarks that start this binary as a child are Linux's.
func childMode() bool { return false }
