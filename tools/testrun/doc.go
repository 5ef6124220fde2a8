// Package testrun finds the tests a run's proposal touches and runs them
// on the proposal, in the sandbox, before the reviewer decides: Go's
// packages that hold a changed file or import one (go list's build graph
// of the module), Python's test files that import a changed module
// directly or through the project's own modules (pytest's conventions),
// and otherwise the commands the user named (checks). A failure is the
// run's only where the same test passed without the run's changes (the
// workspace as it was, run once per run and kept by content).
//
// Invariants:
//   - everything runs through the workspace's commands: in the sandbox,
//     on the run's view (staged changes over the editor's buffers over
//     disk) or the same view without the changes; nothing is written to
//     the workspace, and the host reads only what the commands print;
//   - a verdict is one of three: the tests pass (how many, where), the
//     tests the change broke (name, file:line where known, the first lines
//     of their output), or not run, with why (no test command known, the
//     budget spent, not allowed, no sandbox); never a pass that was not
//     run;
//   - below the sandbox's level full, running the project's tests is
//     asked first, once per run; a denial means none runs.
package testrun
