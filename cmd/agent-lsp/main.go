// Command agent-lsp is a language server that puts a coding agent in the
// editor, and a headless CLI over the same agent:
//
//	agent-lsp [serve]          language server on stdio
//	agent-lsp ask [flags] PROMPT
//	agent-lsp setup
//	agent-lsp models
//	agent-lsp providers
//	agent-lsp doctor
//	agent-lsp version
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// the module version from the build info is used.
var version = ""

const usage = `agent-lsp: a coding agent in your editor, speaking LSP.

Usage:
  agent-lsp [serve]            run the language server on stdio
  agent-lsp acp                run as an Agent Client Protocol agent on stdio (Zed, JetBrains, …)
  agent-lsp ask [flags] PROMPT run the agent once, print its answer and the proposed diff
  agent-lsp setup              sign in: pick a provider, enter its key, pick a model (saved in your own config)
  agent-lsp models             list the configured provider's models (* marks the one in use), with their
                               context window, price and whether they take images
  agent-lsp providers          list the providers the catalog knows, by the name a config gives
  agent-lsp doctor             check the configuration end to end: files, provider, model, sandbox
  agent-lsp doctor --sandbox   print the whole world a command gets in the sandbox here
  agent-lsp doctor --sandbox --server 'gopls'
                               the same for a language server's command line
  agent-lsp version            print the version

Run "agent-lsp ask -h" for the ask flags. Configuration: see README.md.
`

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1 // the run did not complete
	exitUsage  = 2 // bad flags or configuration
)

// main never sees the sandbox's helper mode: a re-executed agent-lsp with the
// helper's argv[0] is taken over by tools/sandbox's init, before main runs.
func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// run is main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	// What reaches the terminal is shown, never obeyed: answers, diffs,
	// command output and errors may carry escape sequences. stdout of serve
	// and acp is the protocol, which their own code keeps displayable.
	if cmd != "serve" && cmd != "acp" {
		stdout = displayWriter{stdout}
	}
	stderr = displayWriter{stderr}
	// What an agent-lsp killed mid-command left (views, temp dirs, cgroups)
	// goes now: before a one-off ask (a few milliseconds), in the background
	// of a server's start.
	switch cmd {
	case "ask":
		sandbox.Sweep()
	case "serve", "acp":
		sandbox.SweepStale()
	}
	switch cmd {
	case "ask":
		return ask(ctx, args, stdin, stdout, stderr, env)
	case "serve":
		return serve(ctx, args, stdin, stdout, stderr, env)
	case "acp":
		return acpServe(ctx, args, stdin, stdout, stderr, env)
	case "models":
		return models(ctx, args, stdout, stderr, env)
	case "providers":
		return providersList(stdout)
	case "setup":
		return setup(ctx, args, stdin, stdout, stderr, env)
	case "doctor":
		return doctor(ctx, args, stdout, stderr, env)
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "agent-lsp", versionString())
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "agent-lsp: unknown command %q\n\n%s", cmd, usage)
	return exitUsage
}

func versionString() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

// displayWriter writes text with its control and bidi characters escaped
// (tools.Displayable).
type displayWriter struct{ w io.Writer }

func (d displayWriter) Write(p []byte) (int, error) {
	if !tools.DisplayableChanged(string(p)) {
		return d.w.Write(p)
	}
	if _, err := io.WriteString(d.w, tools.Displayable(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
