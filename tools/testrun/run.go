package testrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Workspace is what of the run's workspace testrun uses (tools.Workspace).
type Workspace interface {
	// RunCommand runs a shell command in the sandbox on the view.
	RunCommand(ctx context.Context, command string, timeout time.Duration, maxOutput int) (tools.CommandOutcome, error)
	// RunCommandWithoutChanges runs one on the view without the staged
	// changes: the workspace as it was before the run.
	RunCommandWithoutChanges(ctx context.Context, command string, timeout time.Duration, maxOutput int) (tools.CommandOutcome, error)
	// Changes are the run's staged changes.
	Changes() []tools.Change
	// Read reads a file of the view (a project's marker files).
	Read(p string) (tools.File, error)
}

// Suite is tests run by one command in one folder.
type Suite struct {
	Kind    string   // go, pytest or command
	Dir     string   // where the command runs, slash-separated, relative to the workspace's root
	Targets []string // what it tests: packages, test files, the command
	Unit    string   // what a target is: package, file, command
	// Name is how the suite is said: its command, short ("go test ./b").
	Name string
	// command is the command, for only those tests (by ids) when given.
	command func(only []string) string
	// read reads the command's output: the tests that passed, in how many
	// targets, and what failed.
	read func(output string) (passed, targets int, failed []Failure)
	ids  func(Failure) string
}

// Command is the suite's command.
func (s Suite) Command() string { return s.command(nil) }

// runFunc runs a command in folder dir of ws, bounded by the selection's
// time.
type runFunc func(ctx context.Context, ws Workspace, dir, command string) (tools.CommandOutcome, error)

// Options say what Run runs and how.
type Options struct {
	// Budget bounds the tests' time: the proposal's run, then the run
	// without the changes of what failed (default DefaultBudget).
	Budget time.Duration
	// Checks are the commands the user named: run instead of choosing.
	Checks []string
	// Ask is asked once before the first test runs (the sandbox below
	// level full); its error is a denial. Nil: nothing is asked.
	Ask func(ctx context.Context, commands []string) error
}

// DefaultBudget is the tests' time where the settings say none.
const DefaultBudget = 60 * time.Second

// maxTestOutput is what of a test command's output is read: enough for a
// large package's events; what is shown of it is a few lines per failure.
const maxTestOutput = 8 << 20

// Runner runs the tests a run's proposal touches; one per run. Safe for
// concurrent use.
type Runner struct {
	ws   Workspace
	opts Options

	mu      sync.Mutex
	allowed error             // the answer to Ask, once asked
	asked   bool              // Ask was asked
	before  map[string]string // output of a command run without the changes, by command: once per run
	graphs  map[string]string // output of a selection's command (go list …), by the changes it ran on
}

// New is the runner of the run whose workspace is ws.
func New(ws Workspace, opts Options) *Runner {
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	return &Runner{ws: ws, opts: opts, before: map[string]string{}, graphs: map[string]string{}}
}

// Select finds the suites of the run's changes: the checks when the user
// named them; else each Go module's and Python project's tests that the
// changed files touch. No suite: why there is none.
func (r *Runner) Select(ctx context.Context) ([]Suite, string, error) {
	if len(r.opts.Checks) > 0 {
		var out []Suite
		for _, c := range r.opts.Checks {
			out = append(out, commandSuite(c))
		}
		return out, "", nil
	}
	goFiles, pyFiles := map[string][]string{}, map[string][]string{}
	for _, c := range r.ws.Changes() {
		switch path.Ext(c.Path) {
		case ".go":
			dir := r.projectOf(c.Path, []string{"go.mod"})
			goFiles[dir] = append(goFiles[dir], c.Path)
		case ".py":
			dir := r.projectOf(c.Path, []string{"pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini"})
			pyFiles[dir] = append(pyFiles[dir], c.Path)
		}
	}
	if len(goFiles)+len(pyFiles) == 0 {
		return nil, "no test command is known for the files changed (name one with checks)", nil
	}
	run := r.cachedRun(changesDigest(r.ws.Changes()))
	suites, err := goSuites(ctx, r.ws, goFiles, run)
	if err != nil {
		return nil, "", err
	}
	py, err := pythonSuites(ctx, r.ws, pyFiles, run)
	if err != nil {
		return nil, "", err
	}
	suites = append(suites, py...)
	if len(suites) == 0 {
		return nil, "no test touches the changed files (no package or test file holding or importing one has tests)", nil
	}
	return suites, "", nil
}

// cachedRun runs a selection's command (the build graph: go list, the
// imports' reader) once per state of the changes (digest): the run's
// second selection, after a turn that changed nothing, reads no graph
// again.
func (r *Runner) cachedRun(digest string) runFunc {
	return func(ctx context.Context, ws Workspace, dir, command string) (tools.CommandOutcome, error) {
		key := digest + "\x00" + dir + "\x00" + command
		r.mu.Lock()
		out, ok := r.graphs[key]
		r.mu.Unlock()
		if ok {
			return tools.CommandOutcome{Command: command, Output: out}, nil
		}
		res, err := runIn(ctx, ws, dir, command, r.opts.Budget, maxTestOutput, true)
		if err == nil && res.ExitCode == 0 && !res.TimedOut {
			r.mu.Lock()
			r.graphs[key] = res.Output
			r.mu.Unlock()
		}
		return res, err
	}
}

// changesDigest names the state of the staged changes.
func changesDigest(changes []tools.Change) string {
	h := sha256.New()
	for _, c := range changes {
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00", c.Path, len(c.New), c.New)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// projectOf is the folder of the nearest of markers above file (relative,
// slash-separated) in the view, "." for the root.
func (r *Runner) projectOf(file string, markers []string) string {
	for dir := path.Dir(file); ; dir = path.Dir(dir) {
		for _, m := range markers {
			if _, err := r.ws.Read(path.Join(dir, m)); err == nil {
				return dir
			}
		}
		if dir == "." || dir == "/" {
			return "."
		}
	}
}

// commandSuite is a command the user named: it passes or fails whole.
func commandSuite(command string) Suite {
	return Suite{Kind: "command", Dir: ".", Targets: []string{command}, Unit: "command", Name: command,
		command: func([]string) string { return command },
		ids:     func(Failure) string { return command },
	}
}

// Run runs the suites of the run's changes on its view, within the
// budget, and what failed again without the changes, and says what the
// tests say of the proposal.
func (r *Runner) Run(ctx context.Context) Verdict {
	start := time.Now()
	v := r.run(ctx, start)
	v.Took = time.Since(start)
	return v
}

func (r *Runner) run(ctx context.Context, start time.Time) Verdict {
	suites, none, err := r.Select(ctx)
	switch {
	case errors.Is(err, context.Canceled):
		return Verdict{Why: "the run was cancelled"}
	case err != nil:
		return Verdict{Why: "the tests the change touches could not be found: " + err.Error()}
	case len(suites) == 0:
		return Verdict{Why: none}
	}
	if err := r.allow(ctx, suites); err != nil {
		return Verdict{Why: err.Error()}
	}
	var v Verdict
	var failed []failedIn
	for _, s := range suites {
		left := r.opts.Budget - time.Since(start)
		if left <= 0 {
			return Verdict{Why: fmt.Sprintf("budget: the %s the tests have (test_budget_s) was spent before %s ran", r.opts.Budget, s.Name)}
		}
		res, err := runIn(ctx, r.ws, s.Dir, s.Command(), left, maxTestOutput, true)
		switch {
		case errors.Is(err, context.Canceled):
			return Verdict{Why: "the run was cancelled"}
		case err != nil:
			return Verdict{Why: err.Error()}
		case res.TimedOut:
			return Verdict{Why: fmt.Sprintf("budget: %s went past the %s the tests have (test_budget_s); nothing of it is left running", s.Name, r.opts.Budget)}
		}
		passed, targets, fs := s.outcome(res)
		if passed == 0 && len(fs) == 0 && res.ExitCode != 0 {
			if s.Kind == "pytest" && res.ExitCode == 5 {
				continue // pytest found no test in them
			}
			return Verdict{Why: fmt.Sprintf("%s did not run (exit status %d): %s", s.Name, res.ExitCode, strings.Join(firstLines(res.Output, 3), " "))}
		}
		v.Tests += passed
		v.Suites += targets
		for _, f := range fs {
			failed = append(failed, failedIn{s, f})
		}
	}
	if v.Suites == 0 && len(failed) == 0 {
		return Verdict{Why: "the test files the change touches hold no test"}
	}
	v.Kind, v.Unit = Passed, suites[0].Unit
	for _, s := range suites {
		if s.Unit != v.Unit {
			v.Unit = ""
		}
	}
	if len(failed) > 0 {
		r.attribute(ctx, start, failed, &v)
	}
	return v
}

// failedIn is a failure and its suite.
type failedIn struct {
	suite Suite
	f     Failure
}

// outcome reads a suite's run; a command the user named passes or fails
// by its exit status.
func (s Suite) outcome(res tools.CommandOutcome) (passed, targets int, failed []Failure) {
	if s.read != nil {
		return s.read(res.Output)
	}
	if res.ExitCode == 0 {
		return 1, 1, nil
	}
	return 0, 1, []Failure{{Suite: s.Command(), Name: "exit status " + fmt.Sprint(res.ExitCode), Output: lastLines(res.Output, maxFailureLines)}}
}

// attribute runs what failed again without the run's changes: what failed
// there too is not the run's (Before), what passed there the run broke.
func (r *Runner) attribute(ctx context.Context, start time.Time, failed []failedIn, v *Verdict) {
	bySuite := map[int][]failedIn{}
	var order []Suite
	for _, fi := range failed {
		i := slices.IndexFunc(order, func(s Suite) bool { return s.Dir == fi.suite.Dir && s.Command() == fi.suite.Command() })
		if i < 0 {
			order = append(order, fi.suite)
			i = len(order) - 1
		}
		bySuite[i] = append(bySuite[i], fi)
	}
	for i, s := range order {
		fs := bySuite[i]
		var ids []string
		for _, fi := range fs {
			ids = append(ids, s.ids(fi.f))
		}
		failedBefore, why := r.failedWithout(ctx, start, s, slices.Compact(slices.Sorted(slices.Values(ids))))
		for j, fi := range fs {
			switch {
			case failedBefore == nil:
				v.Unattributed = append(v.Unattributed, fi.f)
				v.Why = why
			case failedBefore[ids[j]]:
				v.Before = append(v.Before, fi.f)
			default:
				v.Broke = append(v.Broke, fi.f)
			}
		}
	}
	if len(v.Broke)+len(v.Unattributed) > 0 {
		v.Kind = Broke
	}
}

// failedWithout runs s's tests ids without the run's changes (once per
// run and command) and says which failed there; nil, and why, when that
// could not be known.
func (r *Runner) failedWithout(ctx context.Context, start time.Time, s Suite, ids []string) (map[string]bool, string) {
	command := s.command(ids)
	if s.Kind == "command" {
		command = s.Command()
	}
	r.mu.Lock()
	output, done := r.before[s.Dir+"\x00"+command]
	r.mu.Unlock()
	if !done {
		left := r.opts.Budget - time.Since(start)
		if left <= 0 {
			return nil, fmt.Sprintf("the budget (%s) was spent", r.opts.Budget)
		}
		res, err := runIn(ctx, r.ws, s.Dir, command, left, maxTestOutput, false)
		switch {
		case err != nil:
			return nil, err.Error()
		case res.TimedOut:
			return nil, fmt.Sprintf("the run without the changes went past the budget (%s)", r.opts.Budget)
		}
		output = res.Output
		if s.Kind == "command" && res.ExitCode != 0 {
			output = "\x00failed"
		}
		r.mu.Lock()
		r.before[s.Dir+"\x00"+command] = output
		r.mu.Unlock()
	}
	out := map[string]bool{}
	if s.Kind == "command" {
		out[command] = output == "\x00failed"
		return out, ""
	}
	_, _, fs := s.read(output)
	for _, f := range fs {
		out[s.ids(f)] = true
		if f.Build { // nothing of it ran: each test asked failed there
			for _, id := range ids {
				if strings.HasPrefix(id, s.ids(Failure{Suite: f.Suite})) {
					out[id] = true
				}
			}
		}
	}
	return out, ""
}

// allow asks, once per run, whether the project's tests may run; nil
// when Ask is not set.
func (r *Runner) allow(ctx context.Context, suites []Suite) error {
	if r.opts.Ask == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.asked {
		var commands []string
		for _, s := range suites {
			commands = append(commands, s.Command())
		}
		r.allowed, r.asked = r.opts.Ask(ctx, commands), true
	}
	return r.allowed
}

// runIn runs command in folder dir (slash-separated, relative to the
// workspace's root) of ws's view, with the run's changes or without them.
func runIn(ctx context.Context, ws Workspace, dir, command string, timeout time.Duration, maxOutput int, changed bool) (tools.CommandOutcome, error) {
	if dir != "" && dir != "." {
		command = "cd -- " + tools.ShellQuote(dir) + " || exit 1\n" + command
	}
	if !changed {
		return ws.RunCommandWithoutChanges(ctx, command, timeout, maxOutput)
	}
	return ws.RunCommand(ctx, command, timeout, maxOutput)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = tools.ShellQuote(s)
	}
	return out
}

// lastLines are the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
