package langserver

import (
	"context"
	"io"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// Command is a language server to start.
type Command struct {
	// Name is the server's name in the settings ("gopls").
	Name string
	// Argv is the program and its arguments.
	Argv []string
	// IndexBesideCompileCommands is the server's ServerConfig field.
	IndexBesideCompileCommands bool
	// Root is the project root the server works on: its working directory,
	// and the part of the workspace its sandbox shows (read-only).
	Root string
	// Memory bounds the server's memory in bytes (0: no bound of ours).
	Memory int64
	// View, when set, is what a run-private server reads instead of the
	// workspace: the run's view with its staged files, as its commands see
	// it (tools.Commands.StagedView). Nil: the workspace.
	View *sandbox.View
}

// Process is a started language server: its stdio pipes and its end.
// The sandbox's sandbox.Process satisfies it.
type Process interface {
	Stdin() io.WriteCloser
	Stdout() io.ReadCloser
	// Wait waits for the process to end.
	Wait() error
	// Kill ends the process and whatever it started.
	Kill() error
	Pid() int
}

// Starter starts a language server. In production it runs the server in
// the sandbox, as a command runs (agentrun.LanguageServerStarter is where
// sandbox.Start is wired); a plain process starter exists only in tests
// (langservertest). ctx lives as long as the server may: it ends when the
// Manager closes.
type Starter func(ctx context.Context, c Command) (Process, error)
