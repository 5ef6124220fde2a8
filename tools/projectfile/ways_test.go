package projectfile

import "testing"

// runner is *testing.T or *testing.B.
type runner[T any] interface {
	testing.TB
	Run(name string, f func(T)) bool
}
