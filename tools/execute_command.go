package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

//go:embed execute_command.md
var executeCommandDescription string

// The defaults of CommandLimits, which the settings table
// (command_timeout_s, max_output) declares as its own.
const (
	DefaultCommandTimeout = 30 * time.Second
	DefaultMaxOutput      = 200_000
)

// CommandLimits bound what one command may take.
type CommandLimits struct {
	// Timeout is a command's, and the most a model may ask for (timeout_s
	// only shortens it); default DefaultCommandTimeout.
	Timeout   time.Duration
	MaxOutput int // bytes of output kept, default DefaultMaxOutput
}

func (l CommandLimits) withDefaults() CommandLimits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultCommandTimeout
	}
	if l.MaxOutput <= 0 {
		l.MaxOutput = DefaultMaxOutput
	}
	return l
}

type executeCommandParams struct {
	Command  string `json:"command" jsonschema:"the shell command line to run"`
	TimeoutS int    `json:"timeout_s,omitempty" jsonschema:"seconds before the command is killed, at most the user's command timeout (its default)"`
}

// executeCommandInParams are execute_command's with several roots: cwd
// says which one (and where in it) the command runs.
type executeCommandInParams struct {
	Command  string `json:"command" jsonschema:"the shell command line to run"`
	Cwd      string `json:"cwd,omitempty" jsonschema:"directory to run in, a path as the other tools take it (api or api/src); default: the root this run started in"`
	TimeoutS int    `json:"timeout_s,omitempty" jsonschema:"seconds before the command is killed, at most the user's command timeout (its default)"`
}

// CommandOutcome is the structured result of a command, for the UI.
type CommandOutcome struct {
	Command  string
	ExitCode int
	TimedOut bool
	Output   string
	Duration time.Duration
	// Exceeded says which of the sandbox's bounds killed the command.
	Exceeded string
	// Unsaved lists the files whose unsaved editor text the command saw.
	Unsaved []string
}

func init() {
	Present("execute_command", Presentation{Kind: KindExecute,
		Title: func(c Call) string { return "Run " + c.Code("command") }})
}

// NewExecuteCommand runs commands in the workspace root under policy. approver
// may be nil, in which case anything off the allowlist is denied. With
// several roots it takes cwd, a directory in one of them (by default the
// current root), whose view the command runs in.
func NewExecuteCommand(w *Workspace, policy *Policy, approver Approver, limits CommandLimits) Tool {
	limits = limits.withDefaults()
	run := func(ctx context.Context, p executeCommandInParams) (Result, error) {
		return runCommandTool(ctx, w, policy, approver, limits, p)
	}
	description := executeCommandDescription + " " + CommandsSee
	if w.several() {
		return newTypedTool("execute_command", w.describe(description)+" Commands run in the root this run started in unless cwd names another (or a directory in one).", false, run)
	}
	return newTypedTool("execute_command", description, false, func(ctx context.Context, p executeCommandParams) (Result, error) {
		return run(ctx, executeCommandInParams{Command: p.Command, TimeoutS: p.TimeoutS})
	})
}

// runCommandTool is execute_command's work: the policy (and the user,
// where it asks), then the command in the view of the root cwd names.
func runCommandTool(ctx context.Context, w *Workspace, policy *Policy, approver Approver, limits CommandLimits, p executeCommandInParams) (Result, error) {
	if strings.TrimSpace(p.Command) == "" {
		return Errorf("command is empty"), nil
	}
	f, dir, err := w.commandDir(p.Cwd)
	if err != nil {
		return pathError(err), nil
	}
	// Below the full sandbox, policy asks before anything runs the
	// workspace's code. The level is read here, when a command runs, not
	// when the tool is made: probing it must not hold a run's first model
	// call.
	policy.SetCodeApproval(codeApproval(sandbox.Probe()))
	// Reads stay in the roots; relative paths are read from where it runs.
	reasons, unapproved, err := policy.CheckIn(p.Command, filepath.Join(f.root, filepath.FromSlash(dir)), w.rootDirs())
	if err != nil {
		return Errorf("%v; write a plain POSIX shell command", err), nil
	}
	if len(reasons) > 0 {
		decision := Deny
		if approver != nil {
			decision, err = approver.Approve(ctx, ApprovalRequest{Command: p.Command, Reasons: reasons, Always: allowanceNote(unapproved), OnceOnly: len(unapproved) == 0})
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			if err != nil {
				decision = Deny
			}
		}
		switch decision {
		case AllowAlways:
			policy.AllowFromNow(unapproved)
		case AllowOnce:
		default:
			return Errorf("the user did not allow this command (%s); do without it or ask the user to run it", strings.Join(reasons, "; ")), nil
		}
	}
	timeout := limits.Timeout
	if p.TimeoutS > 0 {
		timeout = min(time.Duration(p.TimeoutS)*time.Second, limits.Timeout)
	}
	w.running.RLock()
	out, err := w.runCommandIn(ctx, f, dir, p.Command, timeout, limits.MaxOutput, true)
	w.running.RUnlock()
	if errors.Is(err, sandbox.ErrLinkInView) {
		return Errorf("%v", err), nil
	}
	if err != nil {
		return Result{}, err
	}
	return Result{Text: out.Text(), IsError: out.ExitCode != 0, Data: out}, nil
}

// commandDir is where a command with cwd runs: the root and the directory
// in it ("." for the root itself); "" is the current root.
func (c *Commands) commandDir(cwd string) (*folder, string, error) {
	if cwd == "" || (!c.roots.several() && cwd == ".") {
		return c.roots.cur, ".", nil
	}
	abs, rel, err := c.roots.Resolve(cwd)
	if err != nil {
		return nil, "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, "", fmt.Errorf("cwd %s is not a directory of the workspace", rel)
	}
	f := c.roots.folderOf(abs)
	return f, f.paths.rel(f.root, abs), nil
}

// Text renders the outcome for the model.
func (o CommandOutcome) Text() string {
	var b strings.Builder
	b.WriteString(o.Output)
	if o.Output != "" && !strings.HasSuffix(o.Output, "\n") {
		b.WriteByte('\n')
	}
	if o.TimedOut {
		fmt.Fprintf(&b, "[killed after %s: timeout]\n", o.Duration.Round(time.Millisecond))
	}
	if o.Exceeded != "" {
		fmt.Fprintf(&b, "[killed: it %s]\n", o.Exceeded)
	}
	if len(o.Unsaved) > 0 {
		fmt.Fprintf(&b, "[ran with the editor's unsaved text of %s]\n", strings.Join(o.Unsaved, ", "))
	}
	fmt.Fprintf(&b, "[exit code: %d]", o.ExitCode)
	return b.String()
}
