package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/mcp"
)

func ask(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	stderr = &lockedWriter{w: stderr} // the sandbox's level is said beside the trace
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	fs.SetOutput(stderr)
	workspace := fs.String("workspace", ".", "the workspace root")
	apply := fs.Bool("apply", false, "write the proposed changes to disk and keep the notes the agent proposed (otherwise both are only printed)")
	applySensitive := fs.Bool("apply-sensitive", false, "like --apply, and also write the changes to sensitive files that --apply refuses")
	maxIter := fs.Int("max-iterations", 0, fmt.Sprintf("iteration cap (default %d, or max_iterations in the config)", config.Settings{}.Iterations()))
	strategy := fs.String("strategy", "", "react (default), plan or reflexion (or strategy in the config)")
	mode := fs.String("mode", "", "ask (read-only: reads and answers, changes nothing, runs nothing), code (default) or plan")
	planOnly := fs.Bool("plan-only", false, "make the plan, print it and stop (implies --mode plan)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: agent-lsp ask [--workspace DIR] [--mode ask|code|plan] [--apply | --apply-sensitive] [--max-iterations N] [--strategy react|plan|reflexion] [--plan-only] PROMPT")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	prompt := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if prompt == "" {
		fmt.Fprintln(stderr, "agent-lsp ask: no prompt given")
		fs.Usage()
		return exitUsage
	}
	m, err := agentrun.ParseMode(*mode)
	if *planOnly {
		m = agentrun.ModePlan
	}
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp ask: %v\n", err)
		return exitUsage
	}
	ws, err := tools.NewWorkspace(*workspace, nil)
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp ask: %v\n", err)
		return exitUsage
	}
	defer ws.Close() // the sandbox's view, if commands needed one
	settings, provider, code := askModel(ctx, ws.Root(), config.Settings{MaxIterations: *maxIter, Strategy: *strategy}, stderr, env)
	if code != exitOK {
		return code
	}
	agentrun.SetSandbox(ws, settings, env("HOME"))
	levelSaid := sayLevel(stderr)
	memory := agent.NewMemory(agent.StateDir(env, ws.Root()))
	// MCP servers start when the run first asks for their tools, and end
	// with the command.
	servers := mcp.NewPool(mcp.Options{Env: env, Version: versionString()})
	defer servers.Close()
	// Language servers start when the run first needs one, and end with
	// the command.
	languageServers := agentrun.NewLanguageServers(env)
	defer languageServers.Close()
	out, err := agentrun.Do(ctx, agentrun.Request{
		Settings: settings, Provider: provider, Mode: m, Prompt: prompt, History: &agent.History{}, PlanOnly: *planOnly,
		View: ws, Policy: agentrun.Policy(settings), Approver: newTerminalApprover(stdin, stderr), Notes: memory, MCP: servers, LSP: languageServers,
		OnEvent: agent.TraceWriter(stderr, provider.Name()),
	})
	levelSaid() // before the answer
	return endAsk(out, err, settings, memory, *apply || *applySensitive, *applySensitive, stdout, stderr)
}

// endAsk shows how the run ended, applies what was asked for, and returns
// the exit code.
func endAsk(out agentrun.Outcome, err error, settings config.Settings, memory *agent.Memory, apply, applySensitive bool, stdout, stderr io.Writer) int {
	switch out.Ending {
	case agentrun.Cancelled, agentrun.Failed:
		reason := err.Error()
		if out.Ending == agentrun.Cancelled {
			reason = "cancelled"
		}
		fmt.Fprintf(stderr, "agent-lsp ask: %s\n", reason)
		if hint := providerHint(err, settings); hint != "" {
			fmt.Fprintf(stderr, "agent-lsp ask: %s\n", hint)
		}
		return exitFailed
	case agentrun.Stopped:
		// Shown as every wire offers it, but never applied unasked: --apply
		// was said before the run, for a run that finishes.
		finishAsk(out, memory, false, false, stdout, stderr)
		fmt.Fprintln(stderr, out.StopNote)
		if apply {
			fmt.Fprintln(stderr, "agent-lsp ask: not applied: the run stopped before the model finished")
		}
		return exitFailed
	}
	return finishAsk(out, memory, apply, applySensitive, stdout, stderr)
}

// sayLevel prints the sandbox's level once it is known — finding it
// starts helpers, which the run's first command waits for, not its first
// model call — and returns what waits until it is printed.
func sayLevel(stderr io.Writer) (wait func()) {
	said := make(chan struct{})
	go func() {
		defer close(said)
		fmt.Fprintf(stderr, "[SANDBOX] commands run at level %s\n", tools.SandboxLevel())
	}()
	return func() { <-said }
}

// lockedWriter is w for writers on several goroutines, a line at a time.
type lockedWriter struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// askModel loads the workspace's settings with the flags' on top, finds
// the model and builds its client; the code is exitOK or what ask exits with.
func askModel(ctx context.Context, root string, flags config.Settings, stderr io.Writer, env func(string) string) (config.Settings, llm.Provider, int) {
	settings, warnings, err := config.Load(root, env)
	for _, w := range warnings {
		fmt.Fprintf(stderr, "agent-lsp: warning: %s\n", w)
	}
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp ask: %v\n", err)
		return settings, nil, exitUsage
	}
	models := agentrun.NewModels(newProviders().New, func(ctx context.Context, s config.Settings) (config.Settings, error) {
		return detectModel(ctx, s, stderr)
	})
	settings, provider, err := models.Resolve(ctx, config.Merge(settings, flags))
	switch {
	case errors.Is(err, errNoModel):
		fmt.Fprintln(stderr, err) // the three ways to set one up, and nothing else
		return settings, nil, exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "agent-lsp ask: %v\n", err)
		return settings, nil, exitUsage
	}
	return settings, provider, exitOK
}

// finishAsk prints the answer, the notes, the proposal and what its tests
// say of a run that ended, and with apply writes the proposal and keeps the
// notes.
func finishAsk(out agentrun.Outcome, memory *agent.Memory, apply, sensitive bool, stdout, stderr io.Writer) int {
	// The tokens the run took close the trace, whatever comes before.
	defer fmt.Fprintf(stderr, "[AGENT] Usage: %s\n", out.Usage)
	answer := out.Answer
	if out.Tests != "" { // after the diff, which they are of
		answer = strings.TrimSuffix(answer, "\n\n"+out.Tests)
	}
	fmt.Fprintln(stdout, strings.TrimRight(answer, "\n"))
	if notice := agent.PendingNotice(memory.Pending()); notice != "" {
		fmt.Fprintf(stdout, "\n%s\n", notice)
	}
	if code := writeProposal(out.Proposal, apply, sensitive, stdout, stderr); code != exitOK {
		return code
	}
	if out.Tests != "" {
		fmt.Fprintf(stdout, "\n%s\n", out.Tests)
	}
	return keepNotes(memory, apply, stderr)
}

// writeProposal prints the proposal's diff and, with apply, writes it.
func writeProposal(p tools.Proposal, apply, sensitive bool, stdout, stderr io.Writer) int {
	if p.Empty() {
		return exitOK
	}
	fmt.Fprintln(stdout)
	// Shown, not obeyed: a file that really holds control or bidi characters
	// is shown escaped, the diff's first line saying so (stdout escapes too,
	// but only this says why).
	diff := p.Diff()
	fmt.Fprint(stdout, tools.DisplayableDiff(diff))
	if tools.DisplayableChanged(diff) {
		fmt.Fprintln(stderr, "[AGENT] the diff holds control or bidi characters, shown escaped above; --apply writes the files as they are")
	}
	if !apply {
		fmt.Fprintf(stderr, "[AGENT] %d file(s) changed in the proposal; nothing was written (use --apply to write them)\n", len(p.Changes))
		return exitOK
	}
	leftOut, err := applyToDisk(p, sensitive, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp ask: not applied: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stderr, "[AGENT] applied %d file(s)\n", len(p.Changes)-len(leftOut))
	return exitOK
}

// keepNotes saves the notes the agent proposed when the user passed --apply;
// without it they were only printed.
func keepNotes(memory *agent.Memory, apply bool, stderr io.Writer) int {
	pending := len(memory.Pending())
	switch {
	case pending == 0:
		return exitOK
	case !apply:
		fmt.Fprintf(stderr, "[AGENT] %d note(s) not kept (use --apply to keep them for later runs)\n", pending)
		return exitOK
	}
	if _, err := memory.Keep(); err != nil {
		fmt.Fprintf(stderr, "agent-lsp ask: notes not kept: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stderr, "[AGENT] kept %d note(s) for later runs\n", pending)
	return exitOK
}

// terminalApprover asks on the terminal; without one it denies, since nobody
// can answer.
type terminalApprover struct {
	in  *bufio.Reader
	out io.Writer
	tty bool
}

func newTerminalApprover(stdin io.Reader, stderr io.Writer) *terminalApprover {
	tty := false
	if f, ok := stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &terminalApprover{in: bufio.NewReader(stdin), out: stderr, tty: tty}
}

func (t *terminalApprover) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
	if !t.tty {
		fmt.Fprintf(t.out, "[AGENT] denied %s: %s (stdin is not a terminal, so nobody can approve it; add it to allowlist in the config to allow it, or an MCP tool to its server's allowed_tools)\n",
			tools.Printable(req.Command), tools.Printable(strings.Join(req.Reasons, "; ")))
		return tools.Deny, nil
	}
	// Escaped: the command comes from the model, and a newline, an ESC
	// sequence or a bidi override must not hide or reorder part of it.
	always := ""
	if req.Always != "" {
		always = req.Always + "\n" // escaped already
	}
	answers := "Deny [N], allow once [y], or always in this workspace [a]? "
	if req.OnceOnly {
		answers = "Deny [N] or allow once [y]? "
	}
	fmt.Fprintf(t.out, "\nThe agent wants to run:\n  %s\nbecause: %s\n%s%s",
		tools.Printable(req.Command), tools.Printable(strings.Join(req.Reasons, "; ")), always, answers)
	answer := make(chan string, 1)
	go func() {
		line, _ := t.in.ReadString('\n')
		answer <- strings.ToLower(strings.TrimSpace(line))
	}()
	select {
	case <-ctx.Done():
		return tools.Deny, ctx.Err()
	case a := <-answer:
		switch a {
		case "y", "yes":
			return tools.AllowOnce, nil
		case "a", "always":
			if !req.OnceOnly {
				return tools.AllowAlways, nil
			}
		}
		return tools.Deny, nil
	}
}

// providerHint tells what to set when the models failed, or "".
func providerHint(err error, s config.Settings) string {
	var e *llm.Error
	if !errors.As(err, &e) {
		return ""
	}
	switch {
	case errors.Is(err, llm.ErrUnauthorized):
		return "check the API key (OPENAI_API_KEY or GEMINI_API_KEY) and that it may use " + s.Model
	case errors.Is(err, llm.ErrContextTooLong):
		return "the conversation is longer than the model's context; narrow the task or use a model with a larger window (AGENT_LSP_MODEL)"
	case errors.Is(err, llm.ErrBadRequest):
		return "the provider refused the request; check AGENT_LSP_MODEL, and AGENT_LSP_TOOL_PROTOCOL=json or text for a model without function calling"
	}
	where := "the provider"
	if s.BaseURL != "" {
		where = llm.RedactURL(s.BaseURL)
	}
	hint := where + " kept failing after retries"
	if len(s.Backups()) == 0 {
		hint += "; set AGENT_LSP_FALLBACK=provider:model (e.g. gemini:gemini-2.5-flash) to continue on another model"
	}
	return hint
}
