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
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
)

func ask(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	fs.SetOutput(stderr)
	workspace := fs.String("workspace", ".", "the workspace root")
	apply := fs.Bool("apply", false, "write the proposed changes to disk (otherwise they are only printed)")
	maxIter := fs.Int("max-iterations", 0, "iteration cap (default 10, or max_iterations in the config)")
	strategy := fs.String("strategy", "", "react (default), plan or reflexion (or strategy in the config)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: agent-lsp ask [--workspace DIR] [--apply] [--max-iterations N] [--strategy react|plan|reflexion] PROMPT")
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
	ws, err := tools.NewWorkspace(*workspace, nil)
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp ask: %v\n", err)
		return exitUsage
	}
	settings, warnings, err := config.Load(ws.Root(), env)
	for _, w := range warnings {
		fmt.Fprintf(stderr, "agent-lsp: warning: %s\n", w)
	}
	if err == nil {
		settings = config.Merge(settings, config.Settings{MaxIterations: *maxIter, Strategy: *strategy})
		err = settings.Validate()
	}
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp ask: %v\n", err)
		return exitUsage
	}
	provider, err := newProviders().New(ctx, settings, nil)
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp ask: %v\n", err)
		return exitUsage
	}

	defer ws.Close() // the sandbox, if commands needed one
	a, err := agent.Build(agent.Setup{
		Provider: provider, Workspace: ws,
		Policy:        tools.NewPolicy(settings.EffectiveAllowlist(tools.DefaultAllowlist)),
		Approver:      newTerminalApprover(stdin, stderr),
		Limits:        tools.CommandLimits{Timeout: time.Duration(settings.CommandTimeoutS) * time.Second, MaxOutput: settings.MaxOutput},
		Memory:        agent.NewMemory(agent.StateDir(env, ws.Root())),
		MaxIterations: settings.MaxIterations, ContextWindow: settings.ContextWindow,
		OnEvent: agent.TraceWriter(stderr, provider.Name()),
	})
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp ask: %v\n", err)
		return exitFailed
	}
	strat, _ := agent.ParseStrategy(settings.Strategy) // Validate checked it
	var history agent.History
	out, err := a.Do(ctx, agent.Task{Prompt: prompt, Strategy: strat, History: &history, Workspace: ws,
		Checks: settings.Checks, MaxTrials: settings.MaxTrials, MaxReplans: settings.MaxReplans})
	if err != nil {
		reason := err.Error()
		if errors.Is(err, context.Canceled) {
			reason = "cancelled"
		}
		fmt.Fprintf(stderr, "agent-lsp ask: %s\n", reason)
		if hint := providerHint(err, settings); hint != "" {
			fmt.Fprintf(stderr, "agent-lsp ask: %s\n", hint)
		}
		return exitFailed
	}
	fmt.Fprintln(stdout, strings.TrimRight(out.Answer, "\n"))
	proposal := ws.Proposal()
	if proposal.Empty() {
		return exitOK
	}
	fmt.Fprintln(stdout)
	fmt.Fprint(stdout, proposal.Diff())
	if !*apply {
		fmt.Fprintf(stderr, "[AGENT] %d file(s) changed in the proposal; nothing was written (use --apply to write them)\n", len(proposal.Changes))
		return exitOK
	}
	if err := applyToDisk(proposal); err != nil {
		fmt.Fprintf(stderr, "agent-lsp ask: not applied: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stderr, "[AGENT] applied %d file(s)\n", len(proposal.Changes))
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
		fmt.Fprintf(t.out, "[AGENT] denied %q: %s (stdin is not a terminal, so nobody can approve it; add it to allowlist in the config to allow it)\n",
			req.Command, strings.Join(req.Reasons, "; "))
		return tools.Deny, nil
	}
	fmt.Fprintf(t.out, "\nThe agent wants to run:\n  %s\nbecause: %s\nAllow once [y], always in this workspace [a], deny [N]? ",
		req.Command, strings.Join(req.Reasons, "; "))
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
			return tools.AllowAlways, nil
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
		where = s.BaseURL
	}
	hint := where + " kept failing after retries"
	if len(s.Fallback) == 0 {
		hint += "; set AGENT_LSP_FALLBACK=provider:model (e.g. gemini:gemini-2.5-flash) to continue on another model"
	}
	return hint
}
