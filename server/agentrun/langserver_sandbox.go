package agentrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/projectfile"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// sandboxStarter starts each language server with sandbox.Start: a
// read-only view of its project (at level full an overlay with nothing
// staged), a cache of its own under dir kept for its next start, the
// commands' allowlisted environment, its memory bound, and the group
// that bounds all the process's servers together.
func sandboxStarter(dir string, group func() *sandbox.Group) langserver.Starter {
	return func(ctx context.Context, c langserver.Command) (langserver.Process, error) {
		view, cleanup, err := serverView(c)
		if err != nil {
			return nil, err
		}
		cache := filepath.Join(dir, "lsp", c.Name+"-"+shortHash(c.Root))
		if err := os.MkdirAll(cache, 0o700); err != nil {
			cleanup()
			return nil, err
		}
		argv := c.Argv
		if c.IndexBesideCompileCommands && c.View == nil && tools.SandboxLevel().Level == sandbox.None {
			// It runs on the workspace itself, which nothing holds read-only.
			argv = append(slices.Clip(argv), compileCommandsElsewhere(c.Root, cache)...)
		}
		p, err := sandbox.Start(ctx, sandbox.Spec{Argv: argv, View: view, Cache: cache, Env: os.Environ(),
			Limits: sandbox.Limits{Memory: c.Memory}, Group: group()})
		if err != nil {
			cleanup()
			return nil, err
		}
		go func() { <-p.Exited(); cleanup() }()
		if p.Dir() != view.Root {
			// A run-private server below level full runs in the commands'
			// copy: its URIs name the copy, the client's the workspace.
			return langserver.Relocated(sandboxProcess{p}, view.Root, p.Dir()), nil
		}
		return sandboxProcess{p}, nil
	}
}

// compileCommandsElsewhere are the arguments that keep clangd's index out
// of root: a copy of root's compile_commands.json in the server's cache,
// beside which clangd writes it; without that file, no background index
// (clangd would put it beside compile_flags.txt).
func compileCommandsElsewhere(root, cache string) []string {
	data, err := projectfile.ReadWhole(root, "compile_commands.json", 64<<20)
	dir := filepath.Join(cache, "compile-commands")
	if err == nil && os.MkdirAll(dir, 0o700) == nil && os.WriteFile(filepath.Join(dir, "compile_commands.json"), data, 0o600) == nil {
		return []string{"--compile-commands-dir=" + dir}
	}
	return []string{"--background-index=false"}
}

// serverView is what server c reads: the run's staged view for a
// run-private one (c.View, the run's to remove); else at level full,
// where the workspace can be overlaid, an overlay with an empty staged
// layer; elsewhere the workspace itself (read-only under Landlock).
// Either way the server sees it at root, which its URIs name.
func serverView(c langserver.Command) (sandbox.View, func(), error) {
	if c.View != nil {
		return *c.View, func() {}, nil
	}
	root := c.Root
	caps := tools.SandboxLevel()
	if caps.Level != sandbox.Full || caps.Mounts != "overlay" {
		return sandbox.View{Root: root}, func() {}, nil
	}
	staged, err := sandbox.MkdirTemp("lsp-staged")
	if err != nil {
		return sandbox.View{}, nil, err
	}
	return sandbox.View{Root: root, Lower: root, Staged: staged}, func() { os.Remove(staged) }, nil
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// sandboxProcess is a sandbox.Process as the client uses it.
type sandboxProcess struct{ p *sandbox.Process }

func (s sandboxProcess) Stdin() io.WriteCloser { return s.p.Stdin() }
func (s sandboxProcess) Stdout() io.ReadCloser { return s.p.Stdout() }
func (s sandboxProcess) Pid() int              { return s.p.Pid() }
func (s sandboxProcess) Kill() error           { s.p.Kill(); return nil }

// Wait says how the server ended: a bound of the sandbox that killed it,
// or its exit status.
func (s sandboxProcess) Wait() error {
	res, err := s.p.Wait()
	switch {
	case err != nil:
		return err
	case res.Exceeded != "":
		return fmt.Errorf("killed: it went past the sandbox's %s bound", res.Exceeded)
	case res.ExitCode != 0:
		return fmt.Errorf("exit status %d", res.ExitCode)
	}
	return nil
}

// ErrServerNotApproved is why a server the user did not allow is not
// started.
var ErrServerNotApproved = errors.New("not started: the user did not allow it")

// askBeforeStarting asks the run's user before a server starts where the
// sandbox cannot hold what it runs of the project (below level full), as
// a command that runs the workspace's code is asked.
func askBeforeStarting(approver tools.Approver) func(context.Context, langserver.Command) error {
	return func(ctx context.Context, c langserver.Command) error {
		if approver == nil {
			return ErrServerNotApproved
		}
		caps := tools.SandboxLevel()
		d, err := approver.Approve(ctx, tools.ApprovalRequest{
			Command:  strings.Join(c.Argv, " "),
			Reasons:  []string{fmt.Sprintf("starts the language server %s, which runs the project's code (build scripts, go list, its interpreter); the sandbox is at level %s here", c.Name, caps)},
			OnceOnly: true, // asked at each start
		})
		if err != nil || d == tools.Deny {
			return ErrServerNotApproved
		}
		return nil
	}
}
