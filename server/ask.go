package server

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/server/documents"
	"github.com/agent-lsp/agent-lsp/tools"
)

// askArgs are agent.ask's arguments.
type askArgs struct {
	Prompt string          `json:"prompt"`
	URI    uri.URI         `json:"uri,omitempty"`
	Range  *protocol.Range `json:"range,omitempty"`
	Model  string          `json:"model,omitempty"`
	// Strategy is react, plan or reflexion; empty takes the configured one.
	Strategy string `json:"strategy,omitempty"`
	// Mode is ask (read-only), code or plan, as in ACP; empty follows the
	// strategy (plan for plan, else code).
	Mode    string `json:"mode,omitempty"`
	Session string `json:"session,omitempty"`
	// Diagnostics are the ones a "Fix with agent" action was made for.
	Diagnostics []diagnosticArg `json:"diagnostics,omitempty"`
	// InstructionLine (1-based) is the line of the instruction comment the
	// prompt came from, which the model is told to remove; the user sees
	// the prompt alone.
	InstructionLine uint32 `json:"instructionLine,omitempty"`
	// Wait makes the request last as long as the run; cancelling the request
	// then cancels the run.
	Wait bool `json:"wait,omitempty"`
}

type diagnosticArg struct {
	Line    uint32 `json:"line"`
	Message string `json:"message"`
}

// askResult is what agent.ask returns; with wait, the run's end too.
type askResult struct {
	RunID string `json:"runId"`
	// ProposalID is the proposal the run would make: none for a read-only
	// run, which cannot propose (a client may show it).
	ProposalID string   `json:"proposalId,omitempty"`
	Session    string   `json:"session"`
	State      runState `json:"state,omitempty"`
	Answer     string   `json:"answer,omitempty"`
	Diff       string   `json:"diff,omitempty"`
	// Notes are what the agent wants to remember; agent.keepNotes keeps them.
	Notes []string `json:"notes,omitempty"`
}

// ask is agent.ask: a run in the session asked for (or the current one),
// started in the background.
func (rn *runner) ask(ctx context.Context, a askArgs) (askResult, error) {
	if strings.TrimSpace(a.Prompt) == "" {
		return askResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams,
			"agent.ask needs a prompt: {\"prompt\": \"…\"}. In Helix, write an `AGENT: …` comment and pick its code action, or run :lsp-workspace-command agent.ask <prompt>")
	}
	mode, err := agentrun.ParseMode(a.Mode)
	if err != nil {
		return askResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, "agent.ask: "+err.Error())
	}
	// The run starts in the folder of the file it is asked about (the
	// first folder without one), with that folder's settings, and sees
	// the folders open now.
	docPath := ""
	if a.URI != "" {
		docPath, _ = documents.PathOf(a.URI)
	}
	folders := rn.workspace.openFolders()
	start := folderFor(folders, docPath)
	if start == nil && len(folders) > 0 {
		start = folders[0]
	}
	var settings config.Settings
	if start != nil {
		model, thinking := rn.options.chosen()
		settings = config.Merge(rn.workspace.folderSettings(start), config.Settings{Model: cmp.Or(a.Model, model), Strategy: a.Strategy, Thinking: thinking})
	}
	if start == nil {
		return askResult{}, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: no workspace folder is open; open the project's folder so the agent knows what it may read and change")
	}
	settings, provider, err := rn.models.Resolve(ctx, settings) // $/cancelRequest stops a model still being found
	if err != nil {
		return askResult{}, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: "+err.Error())
	}
	ws, err := rn.view(ctx, folders, start, settings)
	if err != nil {
		return askResult{}, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: "+err.Error())
	}
	session, history, err := rn.sessions.get(a.Session)
	if err != nil {
		return askResult{}, err
	}
	r := newRun(session, a.Prompt, rn.taskPrompt(a, ws), settings, history)
	r.folder, r.ws, r.mode, r.waited = start, ws, mode, a.Wait
	rn.runs.add(r, true)
	rn.start(r, provider)
	result := askResult{RunID: r.name(), Session: session}
	if mode != agentrun.ModeAsk {
		result.ProposalID = r.proposalName()
	}
	if !a.Wait {
		return result, nil
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		r.cancel()
		<-r.done
		return askResult{}, ctx.Err()
	}
	var runErr error
	result.State, result.Answer, runErr = r.result()
	switch {
	case result.State == runCancelled:
		result.Answer = "Agent run cancelled." // not Go's "context canceled"
	case runErr != nil:
		result.Answer = runErr.Error()
	}
	result.Notes = r.pendingNotes()
	if p := rn.runs.proposalOf(r); p != nil {
		result.Diff = p.diff()
	}
	return result, nil
}

// taskPrompt adds what the user was looking at: the file (as the run's
// tools name it over ws), the selection with line numbers, and the
// diagnostics the action was made for.
func (rn *runner) taskPrompt(a askArgs, ws *tools.Workspace) string {
	if a.URI == "" {
		return a.Prompt
	}
	path, err := documents.PathOf(a.URI)
	if err != nil {
		return a.Prompt
	}
	rel := filepath.ToSlash(path)
	if _, r, err := ws.Resolve(path); err == nil {
		rel = r
	}
	var b strings.Builder
	b.WriteString(a.Prompt)
	if a.InstructionLine > 0 {
		fmt.Fprintf(&b, "\n\n(This instruction is the comment on line %d. Carry it out, then remove that instruction comment.)", a.InstructionLine)
	}
	fmt.Fprintf(&b, "\n\nFile: %s", rel)
	text, _, exists, _ := currentText(rn.docs, path)
	if a.Range != nil && exists {
		enc := rn.win.caps.get().encoding
		start, end := enc.Offset(text, a.Range.Start), enc.Offset(text, a.Range.End)
		first, last := a.Range.Start.Line+1, a.Range.End.Line+1
		if a.Range.End.Character == 0 && last > first {
			last-- // a selection of whole lines ends at the start of the next one
		}
		if start < end {
			if first == last {
				fmt.Fprintf(&b, " (line %d selected)\n\n```\n", first)
			} else {
				fmt.Fprintf(&b, " (lines %d-%d selected)\n\n```\n", first, last)
			}
			for i, line := range strings.Split(strings.TrimRight(text[start:end], "\n"), "\n") {
				fmt.Fprintf(&b, "%6d\t%s\n", int(first)+i, strings.TrimRight(line, "\r"))
			}
			b.WriteString("```")
		} else {
			fmt.Fprintf(&b, " (cursor on line %d)", first)
		}
	}
	if len(a.Diagnostics) > 0 {
		b.WriteString("\n\nDiagnostics:")
		for _, d := range a.Diagnostics {
			fmt.Fprintf(&b, "\n- line %d: %s", d.Line+1, d.Message)
		}
	}
	return b.String()
}
