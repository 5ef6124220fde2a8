package projectfile

import (
	"errors"

	"golang.org/x/sys/unix"
)

// eachWay runs f with openat2 (skipped where the kernel has none) and
// again with the walk that replaces it there.
func eachWay[T runner[T]](t T, f func(T)) {
	t.Run("openat2", func(t T) {
		if noOpenat2.Load() {
			t.Skip("no openat2 here")
		}
		if f, err := openBeneath(t.TempDir(), ".", unix.O_RDONLY|unix.O_CLOEXEC); errors.Is(err, errNoOpenat2) {
			t.Skip("no openat2 here:", err)
		} else if err == nil {
			f.Close()
		}
		f(t)
	})
	t.Run("walk", func(t T) {
		noOpenat2.Store(true)
		t.Cleanup(func() { noOpenat2.Store(false) })
		f(t)
	})
}
