//go:build !linux

package projectfile

// eachWay runs f once: the walk is the only way here.
func eachWay[T runner[T]](t T, f func(T)) { f(t) }
