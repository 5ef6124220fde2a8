package agentrun

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
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

// checkNote tells the model what the run-end check found, so it can fix it.
const checkNote = "(Note from agent-lsp: before the user reviews your changes, the language server checked them:\n%s\nFix these errors if they are yours, or say in your answer why they remain.)"

// checkProposal diagnoses the proposal once at the run's end; with new
// errors and a run that ended on its own, the model gets one more turn to
// fix them, and the changes are checked again. The report's text is for
// the reviewer.
func checkProposal(ctx context.Context, r Request, a *agent.Agent, s *langserver.Session, out *Outcome, err *error) {
	if s == nil || !offered(ctx, *err) || r.View.Proposal().Empty() {
		return
	}
	report := s.Check(ctx)
	if len(report.New) > 0 && *err == nil {
		r.History.AddUser(fmt.Sprintf(checkNote, report.Text()))
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
		report = s.Check(ctx)
	}
	out.Check = report.Text()
	if out.Check != "" {
		if r.OnEvent != nil {
			r.OnEvent(agent.Event{Kind: agent.EventNotice, Text: out.Check})
		}
		out.Answer += "\n\n" + out.Check
	}
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
