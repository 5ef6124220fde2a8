package sandbox

import (
	"errors"
	"os/exec"
)

// exitStatus is how a process ended, from cmd.Wait's err, the same for
// every back-end: its exit code — 128+N for one a signal N killed, as a
// shell says it (exitCodeOf) — or the error that kept it from running to
// an exit. Output still held open past WaitDelay is no error.
func exitStatus(err error) (code int, failed error) {
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		return exitCodeOf(exitErr), nil
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		return 0, err
	}
	return 0, nil
}
