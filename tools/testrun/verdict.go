package testrun

import (
	"fmt"
	"strings"
	"time"
)

// Kind is the kind of a verdict.
type Kind int

const (
	NotRun Kind = iota // no test ran, or what ran says nothing (Why)
	Passed             // every test run passes (or failed before the run too)
	Broke              // tests fail with the change: it broke them (or whether they did before is not known)
)

// Failure is a test that failed, or a package that did not build.
type Failure struct {
	Suite string // the package or test file, as the workspace names it
	Name  string // the test's name; "" for what failed outside a test
	Build bool   // the suite did not build (compile, collect)
	Where string // file:line where known, the workspace's naming
	// Output is the first lines of what it printed.
	Output string
}

// Verdict is what the tests a proposal touches say of it.
type Verdict struct {
	Kind Kind
	// Tests passed, in Suites suites (packages, test files, commands: Unit
	// says which, "" for several kinds).
	Tests, Suites int
	Unit          string
	Broke         []Failure
	// Before are failures that failed without the run's changes too: not
	// the run's, said so.
	Before []Failure
	// Unattributed are failures whose run without the changes could not
	// be made: the run's or not is not known.
	Unattributed []Failure
	Why          string // of NotRun; or why the failures' past is not known
	Took         time.Duration
}

// maxShownFailures bounds the failures a verdict lists, and
// maxFailureLines the lines of each one's output.
const (
	maxShownFailures = 10
	maxFailureLines  = 8
)

// Text is the verdict for the model and the reviewer.
func (v Verdict) Text() string {
	var b strings.Builder
	switch v.Kind {
	case NotRun:
		fmt.Fprintf(&b, "Tests: not run: %s.", v.Why)
	case Passed:
		fmt.Fprintf(&b, "Tests: %d test(s) in %d %s pass with the proposal.", v.Tests, v.Suites, v.unit())
	case Broke:
		if len(v.Broke) > 0 {
			fmt.Fprintf(&b, "Tests: the proposal breaks %d test(s) that pass without it:", len(v.Broke))
			writeFailures(&b, v.Broke)
		}
		if len(v.Unattributed) > 0 {
			if len(v.Broke) > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "Tests: %d test(s) fail with the proposal; whether they did without it is not known (%s):", len(v.Unattributed), v.Why)
			writeFailures(&b, v.Unattributed)
		}
	}
	if len(v.Before) > 0 {
		names := make([]string, 0, len(v.Before))
		for _, f := range v.Before {
			names = append(names, f.label())
		}
		fmt.Fprintf(&b, "\nTests: %d test(s) failed before this run too, and still do (not the agent's): %s.", len(v.Before), clipList(names, maxShownFailures))
	}
	return b.String()
}

// unit names the suites: packages, files, commands, or suites.
func (v Verdict) unit() string {
	one := v.Unit
	if one == "" {
		one = "suite"
	}
	return plural(v.Suites, one, one+"s")
}

func writeFailures(b *strings.Builder, fs []Failure) {
	for i, f := range fs {
		if i == maxShownFailures {
			fmt.Fprintf(b, "\n  … and %d more", len(fs)-i)
			break
		}
		fmt.Fprintf(b, "\n  %s", f.label())
		if f.Where != "" {
			fmt.Fprintf(b, " (%s)", f.Where)
		}
		for _, line := range firstLines(f.Output, maxFailureLines) {
			fmt.Fprintf(b, "\n      %s", line)
		}
	}
}

func (f Failure) label() string {
	switch {
	case f.Build:
		return f.Suite + " (does not build)"
	case f.Name == "":
		return f.Suite + " (failed outside its tests)"
	}
	return f.Suite + ": " + f.Name
}

// firstLines are the first n non-empty lines of s, trimmed.
func firstLines(s string, n int) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimRight(line, " \t\r"); strings.TrimSpace(line) == "" {
			continue
		}
		if len(out) == n {
			out = append(out, "…")
			break
		}
		if len(line) > 200 {
			line = line[:200] + "…"
		}
		out = append(out, strings.TrimSpace(line))
	}
	return out
}

func clipList(names []string, n int) string {
	if len(names) > n {
		return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
	}
	return strings.Join(names, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
