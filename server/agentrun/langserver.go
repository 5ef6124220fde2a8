package agentrun

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
	"github.com/agent-lsp/agent-lsp/tools/testrun"
)

// LanguageServerStarter, when set, starts the language servers instead of
// the sandbox (tests: a plain process). Nil in the product: sandbox.Start.
var LanguageServerStarter langserver.Starter

// NewLanguageServers is the language servers' Manager of a wire's process:
// one per process, shared by its runs, closed with it. Servers start in
// the sandbox (sandboxStarter) with their caches under the sandbox's dir
// of env (SandboxDir), bounded together by one group; below level full
// every start is asked first (the run's askBeforeStarting), and a start
// no one was asked for, such as a read's warming, does not happen.
func NewLanguageServers(env func(string) string) *langserver.Manager {
	start := LanguageServerStarter
	var mustAsk func() bool
	if start == nil {
		mustAsk = func() bool { return tools.SandboxLevel().ServerNeedsApproval() }
		dir := SandboxDir(env)
		if dir == "" {
			if cache, err := os.UserCacheDir(); err == nil {
				dir = filepath.Join(cache, "agent-lsp", "sandbox")
			}
		}
		// Made at the first start, not here: making it probes the sandbox,
		// which initialize must not wait for.
		group := sync.OnceValue(func() *sandbox.Group {
			g, err := sandbox.NewGroup(sandbox.Limits{Memory: langserver.DefaultMemoryTotal})
			if err != nil {
				return nil // each server keeps its own bound; the Manager counts the total
			}
			return g
		})
		start = sandboxStarter(dir, group)
	}
	return langserver.NewManager(langserver.Options{Start: start, MustAsk: mustAsk})
}

// LanguageServers are the servers a run may use: the known ones found on
// PATH, with the settings' [lsp.NAME] laid over them.
func LanguageServers(s config.Settings) langserver.Servers {
	return langserver.WithOverrides(langserver.KnownServers(), s.LSP)
}

// withLanguageServers adds the session's part to a run's tools: edits
// report their new errors, reads warm the file's server, and the language
// tools join (rename is dropped where the run is read-only).
func withLanguageServers(ts []tools.Tool, s *langserver.Session) []tools.Tool {
	if s == nil {
		return ts
	}
	for i, t := range ts {
		switch t.Name() {
		case "edit_file", "write_file":
			ts[i] = s.CheckingEdits(t)
		case "read_file":
			ts[i] = s.WarmingOnRead(t)
		}
	}
	return append(ts, s.Tools()...)
}

// reviewNote tells the model what the run-end review found, so it can fix
// it.
const reviewNote = "(Note from agent-lsp: before the user reviews your changes, agent-lsp checked them:\n%s\nFix what your changes broke, or say in your answer why it remains.)"

// review checks the proposal once at the run's end: the language servers'
// check (s, may be nil) and the tests the proposal touches (tests, may be
// nil). Where either finds what the run broke, and the run ended on its
// own, the model gets one more turn to fix it, and both are made again.
// Their texts end the answer, for the reviewer.
func review(ctx context.Context, r Request, a *agent.Agent, s *langserver.Session, tests *testrun.Runner, out *Outcome, err *error) {
	if s == nil && tests == nil || !offered(ctx, *err) || r.View.Proposal().Empty() {
		return
	}
	check, verdict := reviewOnce(ctx, s, tests)
	if (len(check.New) > 0 || verdict.Kind == testrun.Broke) && *err == nil {
		r.History.AddUser(fmt.Sprintf(reviewNote, joinTexts(check.Text(), testsText(tests, verdict))))
		more, cerr := a.Continue(ctx, r.History)
		out.Usage.Add(more.Usage)
		out.Iterations += more.Iterations
		if cerr == nil {
			out.Answer = more.Answer
		}
		*err = cerr
		if !offered(ctx, cerr) {
			return
		}
		check, verdict = reviewOnce(ctx, s, tests)
	}
	out.Check, out.Tests = check.Text(), testsText(tests, verdict)
	out.Appended = joinTexts(out.Check, out.Tests)
	if out.Appended != "" {
		if r.OnEvent != nil {
			r.OnEvent(agent.Event{Kind: agent.EventNotice, Text: out.Appended})
		}
		out.Answer += "\n\n" + out.Appended
	}
}

// reviewOnce is the language servers' check and the tests' verdict of the
// proposal as it stands (each zero where not asked for).
func reviewOnce(ctx context.Context, s *langserver.Session, tests *testrun.Runner) (langserver.Report, testrun.Verdict) {
	var check langserver.Report
	var verdict testrun.Verdict
	if s != nil {
		check = s.Check(ctx)
	}
	if tests != nil {
		verdict = tests.Run(ctx)
	}
	return check, verdict
}

func testsText(tests *testrun.Runner, v testrun.Verdict) string {
	if tests == nil {
		return ""
	}
	return v.Text()
}

// joinTexts joins the non-empty of texts, a blank line between.
func joinTexts(texts ...string) string {
	var out []string
	for _, t := range texts {
		if t != "" {
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n\n")
}

// offered reports whether a run that returned err offers its proposal.
func offered(ctx context.Context, err error) bool {
	e := endingOf(ctx, err)
	return e == Answered || e == Stopped
}

// LanguageServerStatus is what agent.status says of the language servers:
// those the Manager ran on root and their state, and each other server the
// workspace looks like it uses, installed (not started yet, or not
// startable in this build) or missing with its install command.
func LanguageServerStatus(m *langserver.Manager, s config.Settings, root string) []langserver.Status {
	out := m.Status()
	for _, a := range LanguageServers(s).Available(root, slices.Collect(maps.Keys(s.LSP)), exec.LookPath) {
		if slices.ContainsFunc(out, func(st langserver.Status) bool { return st.Server == a.Server }) {
			continue
		}
		st := langserver.Status{Server: a.Server, Root: root, State: "not started yet (" + a.Path + ")"}
		switch {
		case a.Missing != "":
			st.State = "unavailable: " + a.Missing
		}
		out = append(out, st)
	}
	return out
}
