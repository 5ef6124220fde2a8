package agentrun

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
	"github.com/agent-lsp/agent-lsp/tools/testrun"
)

// testsOf is the runner of the tests r's proposal touches, nil where they
// do not run: run_tests off, or a mode that stages nothing.
func testsOf(r Request, mode Mode) *testrun.Runner {
	if !r.Settings.RunsTests() || mode == ModeAsk || r.PlanOnly {
		return nil
	}
	return testrun.New(r.View, testrun.Options{Budget: r.Settings.TestBudget(), Checks: r.Settings.Checks, Ask: askToRunTests(r.Approver)})
}

// ErrTestsNotAllowed is why the tests did not run where the user was asked.
var ErrTestsNotAllowed = errors.New("you did not allow running the project's tests")

// askToRunTests asks the run's user, once, before the project's tests run
// where the sandbox cannot hold what they run (below level full), as a
// command that runs the workspace's code is asked; at full it asks nothing.
func askToRunTests(approver tools.Approver) func(context.Context, []string) error {
	return func(ctx context.Context, commands []string) error {
		caps := tools.SandboxLevel()
		if caps.Level == sandbox.Full {
			return nil
		}
		if approver == nil {
			return ErrTestsNotAllowed
		}
		d, err := approver.Approve(ctx, tools.ApprovalRequest{
			Command:  strings.Join(commands, "\n"),
			Reasons:  []string{fmt.Sprintf("runs the project's tests on the proposal before you review it, which runs the project's code; the sandbox is at level %s here", caps)},
			OnceOnly: true, // asked at each run
		})
		if err != nil || d == tools.Deny {
			return ErrTestsNotAllowed
		}
		return nil
	}
}
