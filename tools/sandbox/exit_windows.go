package sandbox

import "os/exec"

// exitCodeOf is e's exit code (a process ended by TerminateJobObject has
// the code given there).
func exitCodeOf(e *exec.ExitError) int { return e.ExitCode() }
