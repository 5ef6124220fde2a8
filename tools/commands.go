package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// Commands runs the workspace's commands, each in the sandbox
// (tools/sandbox) and in a view of its root: the root as the editor shows
// it (unsaved buffers) with the run's staged changes over it, made at the
// first command run in that root and kept in step with the changes until
// Close (command_view.go). SetSandbox says how commands are isolated.
// Safe for concurrent use.
type Commands struct {
	roots     *RootSet
	view      *View      // the editor's unsaved buffers a command sees
	changeset *Changeset // the staged changes a command sees
	tree      *Tree      // what a copy of a root holds

	mu    sync.Mutex              // guards opts and views
	opts  SandboxOptions          // how commands are isolated
	views map[*folder]commandView // per root: made at its first command, removed by Close

	// running is held (read) by each command for its whole run, and
	// alone by a command run without the staged changes, which takes them
	// out of the view for its time (RunCommandWithoutChanges).
	running sync.RWMutex
}

func newCommands(roots *RootSet, view *View, changeset *Changeset, tree *Tree) *Commands {
	return &Commands{roots: roots, view: view, changeset: changeset, tree: tree, views: map[*folder]commandView{}}
}

// SandboxOptions say how a workspace's commands are isolated.
type SandboxOptions struct {
	// Network lets commands reach the network: the user's own opt-in.
	Network bool
	// NetworkIn, when set, decides Network for each root (its Dir, links
	// resolved): the opt-in names workspaces, and a run's commands may run
	// in any of its roots.
	NetworkIn func(root string) bool
	// Cache, when set, replaces the workspace's own build cache (workspaces
	// may share one; never the user's own GOCACHE, which commands could poison).
	Cache string
	// ReadOnly adds directories commands may read (toolchains elsewhere).
	ReadOnly []string
	Limits   sandbox.Limits
	// Env is the environment commands start from, before the sandbox's
	// allowlist (default: this process's).
	Env []string
}

// SetSandbox configures the isolation of this workspace's commands.
func (c *Commands) SetSandbox(o SandboxOptions) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opts = o
}

// commandSpec prepares a command's run in root f: the view of f with the
// editor's unsaved buffers and the staged changes over them (made at the
// first command run in f, then kept in step) and the run's cache. unsaved
// lists the buffers whose unsaved text the view holds.
func (c *Commands) commandSpec(ctx context.Context, command string, f *folder, timeout time.Duration, staged bool) (spec sandbox.Spec, unsaved []string, err error) {
	v, unsaved, err := c.viewOf(ctx, f, staged)
	if err != nil {
		return sandbox.Spec{}, nil, err
	}
	c.mu.Lock()
	opts := c.opts
	c.mu.Unlock()
	cache := v.cache()
	if opts.Cache != "" {
		cache = opts.Cache
		if err := os.MkdirAll(cache, 0o700); err != nil {
			return sandbox.Spec{}, nil, err
		}
	}
	return specIn(command, f, opts, v.view(), cache, timeout), unsaved, nil
}

// viewOf is root f's view, made at its first use and brought in step with
// the staged changes (unless staged is false: then without them) and the
// unsaved buffers now; unsaved lists the buffers it holds.
func (c *Commands) viewOf(ctx context.Context, f *folder, staged bool) (v commandView, unsaved []string, err error) {
	var changes []Change
	if staged {
		changes = c.changeset.Changes()
	}
	buffers := c.view.unsavedBuffers(changes)
	for _, b := range buffers {
		if f.holds(b.AbsPath) {
			unsaved = append(unsaved, b.Path)
		}
	}
	changes = f.inView(append(changes, buffers...))
	caps := sandbox.Probe()
	c.mu.Lock()
	v = c.views[f]
	c.mu.Unlock()
	if v == nil {
		sandbox.SweepStale()
		made, err := c.newView(ctx, caps, f, changes)
		if err != nil {
			return nil, nil, err
		}
		c.mu.Lock()
		if c.views[f] == nil {
			c.views[f] = made
		} else {
			made.Close() // another command made one meanwhile: use that
		}
		v = c.views[f]
		c.mu.Unlock()
	}
	if err := v.Sync(changes); err != nil {
		return nil, nil, err
	}
	return v, unsaved, nil
}

// StagedView is what the run's commands see of the root holding abs,
// brought in step with the staged changes and the unsaved buffers now: the
// view a run-private language server reads when the run staged a file
// that acts on the build (sandbox.Start takes it). At level full it is the
// overlay's lower layers only (the workspace and the staged layer, which
// the host alone writes), below full the commands' copy. It lasts until
// Close; a later staged change reaches it at the next StagedView or
// command.
func (c *Commands) StagedView(ctx context.Context, abs string) (sandbox.View, error) {
	f := c.roots.folderOf(abs)
	if f == nil {
		return sandbox.View{}, fmt.Errorf("%s is in none of the workspace's roots", abs)
	}
	c.running.RLock()
	defer c.running.RUnlock()
	v, _, err := c.viewOf(ctx, f, true)
	if err != nil {
		return sandbox.View{}, err
	}
	sv := v.view()
	return sandbox.View{Root: sv.Root, Lower: sv.Lower, Staged: sv.Staged, Copy: sv.Copy}, nil
}

// specIn is the spec of command in root f over view and cache, bounded by
// timeout: the one place a command's spec is put together, for a run and
// for PreviewSpec.
func specIn(command string, f *folder, opts SandboxOptions, view sandbox.View, cache string, timeout time.Duration) sandbox.Spec {
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	network := opts.Network
	if opts.NetworkIn != nil {
		network = opts.NetworkIn(f.root)
	}
	limits := opts.Limits
	limits.Timeout = timeout // and the CPU time that follows from it (sandbox.Limits)
	return sandbox.Spec{
		Command: command, View: view, Cache: cache, Env: env,
		Network: network, ReadOnly: opts.ReadOnly, Limits: limits,
		GitDir: filepath.Join(f.root, ".git"),
	}
}

// PreviewSpec is the spec a command in the current root would get, with
// no view or cache made yet (sandbox.Preview names them): what `agent-lsp
// doctor --sandbox` prints, built as a run builds it.
func (c *Commands) PreviewSpec(command string, timeout time.Duration) sandbox.Spec {
	c.mu.Lock()
	opts := c.opts
	c.mu.Unlock()
	return specIn(command, c.roots.cur, opts, sandbox.View{}, opts.Cache, timeout)
}

// RunCommand runs command with bash in the sandbox (tools/sandbox), where it
// sees the workspace with the run's staged changes and can change nothing
// of the user's. A timeout or cancellation kills every process it started.
// stdout and stderr are captured separately (stderr after a "[stderr]"
// marker), each cut in the middle past maxOutput/2 bytes. A Go error is
// returned only when the command cannot run or ctx was cancelled.
func (c *Commands) RunCommand(ctx context.Context, command string, timeout time.Duration, maxOutput int) (CommandOutcome, error) {
	c.running.RLock()
	defer c.running.RUnlock()
	return c.runCommandIn(ctx, c.roots.cur, ".", command, timeout, maxOutput, true)
}

// RunCommandWithoutChanges is RunCommand on the view without the run's
// staged changes (the editor's buffers still over disk): the workspace as
// it was before the run, in the same view and cache, so what the run's
// commands built is reused. No other command runs meanwhile; the next one
// sees the changes again.
func (c *Commands) RunCommandWithoutChanges(ctx context.Context, command string, timeout time.Duration, maxOutput int) (CommandOutcome, error) {
	c.running.Lock()
	defer c.running.Unlock()
	return c.runCommandIn(ctx, c.roots.cur, ".", command, timeout, maxOutput, false)
}

// runCommandIn is RunCommand in root f's view (with the staged changes, or
// not), starting in its directory dir (slash-separated, relative to f).
func (c *Commands) runCommandIn(ctx context.Context, f *folder, dir, command string, timeout time.Duration, maxOutput int, staged bool) (CommandOutcome, error) {
	out := CommandOutcome{Command: command}
	run := command
	if dir != "." {
		// The view is of the root: the shell goes down to dir first, the
		// command's own words unchanged (the policy checked those).
		run = "cd -- " + ShellQuote(dir) + " || exit 1\n" + command
	}
	spec, unsaved, err := c.commandSpec(ctx, run, f, timeout, staged)
	if err != nil {
		return out, fmt.Errorf("execute_command: %w", err)
	}
	out.Unsaved = unsaved
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stdout, stderr := newMiddleCut(maxOutput/2), newMiddleCut(maxOutput/2)
	spec.Stdout, spec.Stderr = teeOutput(ctx, stdout), teeOutput(ctx, stderr)
	res, err := sandbox.Run(runCtx, spec)
	out.Duration, out.ExitCode, out.Exceeded = res.Duration, res.ExitCode, res.Exceeded
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	if err != nil && runCtx.Err() == nil {
		return out, fmt.Errorf("execute_command: %w", err)
	}
	if runCtx.Err() != nil {
		out.TimedOut = true
		if out.ExitCode == 0 {
			out.ExitCode = -1
		}
	}
	out.Output = stdout.String()
	if e := stderr.String(); e != "" {
		if out.Output != "" && !strings.HasSuffix(out.Output, "\n") {
			out.Output += "\n"
		}
		out.Output += "[stderr]\n" + e
	}
	return out, nil
}

// ShellQuote quotes s as one word of a POSIX shell.
func ShellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Close removes the commands' views, if any were made. The workspace stays
// usable: the next command makes its root's view again.
func (c *Commands) Close() error {
	c.mu.Lock()
	var views []commandView
	for _, f := range c.roots.folders {
		if v := c.views[f]; v != nil {
			views = append(views, v)
			delete(c.views, f)
		}
	}
	c.mu.Unlock()
	var errs []error
	for _, v := range views {
		errs = append(errs, v.Close())
	}
	return errors.Join(errs...)
}
