package server

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Command names: every command the server offers, under the agent. prefix.
const (
	cmdAsk             = "agent.ask"
	cmdApplyProposal   = "agent.applyProposal"
	cmdDiscardProposal = "agent.discardProposal"
	cmdShowProposal    = "agent.showProposal"
	cmdCancel          = "agent.cancel"
	cmdNewSession      = "agent.newSession"
	cmdStatus          = "agent.status"
	cmdListSessions    = "agent.listSessions"
	cmdSwitchSession   = "agent.switchSession"
	cmdForget          = "agent.forget"
	cmdKeepNotes       = "agent.keepNotes"
	cmdRunPlan         = "agent.runPlan"
)

var allCommands = []string{cmdAsk, cmdApplyProposal, cmdDiscardProposal, cmdShowProposal, cmdCancel, cmdNewSession, cmdStatus,
	cmdListSessions, cmdSwitchSession, cmdForget, cmdKeepNotes, cmdRunPlan}

// RequestFailed is LSP's code for a request that was valid but failed.
const codeRequestFailed jsonrpc2.Code = -32803

// askArgs are agent.ask's arguments.
type askArgs struct {
	Prompt string          `json:"prompt"`
	URI    uri.URI         `json:"uri,omitempty"`
	Range  *protocol.Range `json:"range,omitempty"`
	Model  string          `json:"model,omitempty"`
	// Strategy is react, plan or reflexion; empty takes the configured one.
	Strategy string `json:"strategy,omitempty"`
	Session  string `json:"session,omitempty"`
	// Diagnostics are the ones a "Fix with agent" action was made for.
	Diagnostics []diagnosticArg `json:"diagnostics,omitempty"`
	// Wait makes the request last as long as the run; cancelling the request
	// then cancels the run.
	Wait bool `json:"wait,omitempty"`
}

type diagnosticArg struct {
	Line    uint32 `json:"line"`
	Message string `json:"message"`
}

// idArgs are the arguments of the commands that name a proposal or run. An
// empty ID means the latest one.
type idArgs struct {
	ID string `json:"id,omitempty"`
}

// askResult is what agent.ask returns.
type askResult struct {
	RunID      string `json:"runId"`
	ProposalID string `json:"proposalId"`
	Session    string `json:"session"`
	State      string `json:"state,omitempty"`
	Answer     string `json:"answer,omitempty"`
	Diff       string `json:"diff,omitempty"`
	// Notes are what the agent wants to remember; agent.keepNotes keeps them.
	Notes []string `json:"notes,omitempty"`
}

// decodeArgs decodes the first argument into v. A bare string is accepted too
// (Helix's :lsp-workspace-command passes words): it sets field (prompt or id).
func decodeArgs(args []protocol.LSPAny, v any, setString func(string)) error {
	if len(args) == 0 {
		return nil
	}
	var str string
	if err := json.Unmarshal(args[0], &str); err == nil {
		var words []string
		for _, a := range args {
			var w string
			if json.Unmarshal(a, &w) == nil {
				words = append(words, w)
			}
		}
		setString(strings.Join(words, " "))
		return nil
	}
	if err := json.Unmarshal(args[0], v); err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("invalid command arguments: %v", err))
	}
	return nil
}

func (s *Server) executeCommand(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.ExecuteCommandParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	switch params.Command {
	case cmdAsk:
		var a askArgs
		if err := decodeArgs(params.Arguments, &a, func(s string) { a.Prompt = s }); err != nil {
			return nil, err
		}
		return s.ask(ctx, a)
	case cmdApplyProposal, cmdDiscardProposal, cmdShowProposal, cmdCancel, cmdKeepNotes, cmdRunPlan:
		var a idArgs
		if err := decodeArgs(params.Arguments, &a, func(s string) { a.ID = s }); err != nil {
			return nil, err
		}
		switch params.Command {
		case cmdApplyProposal:
			return s.applyProposal(ctx, a.ID)
		case cmdDiscardProposal:
			return s.discardProposal(a.ID)
		case cmdShowProposal:
			return s.showProposal(ctx, a.ID)
		case cmdKeepNotes:
			return s.keepNotes(a.ID)
		case cmdRunPlan:
			return s.runPlan(a.ID)
		}
		return s.cancelRuns(a.ID)
	case cmdNewSession:
		id := s.store.NewID()
		s.mu.Lock()
		defer s.mu.Unlock()
		s.sessions[id] = &agent.History{}
		s.session = id
		return map[string]string{"session": id}, nil
	case cmdListSessions:
		list, err := s.store.List()
		if err != nil {
			return nil, jsonrpc2.NewError(codeRequestFailed, err.Error())
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return map[string]any{"current": s.session, "sessions": list}, nil
	case cmdSwitchSession:
		var a idArgs
		if err := decodeArgs(params.Arguments, &a, func(s string) { a.ID = s }); err != nil {
			return nil, err
		}
		return s.switchSession(a.ID)
	case cmdForget:
		var a struct {
			Index int `json:"index"`
		}
		if err := decodeArgs(params.Arguments, &a, func(str string) { a.Index, _ = strconv.Atoi(str) }); err != nil {
			return nil, err
		}
		n, err := s.memory.Forget(a.Index)
		if err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
		}
		return map[string]any{"forgotten": n, "notes": s.memory.Notes()}, nil
	case cmdStatus:
		return s.status(), nil
	}
	return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("unknown command %q; commands: %s", params.Command, strings.Join(allCommands, ", ")))
}

func (s *Server) ask(ctx context.Context, a askArgs) (any, error) {
	if strings.TrimSpace(a.Prompt) == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams,
			"agent.ask needs a prompt: {\"prompt\": \"…\"}. In Helix, write an `AGENT: …` comment and pick its code action, or run :lsp-workspace-command agent.ask <prompt>")
	}
	s.mu.Lock()
	settings := config.Merge(s.settingsLocked(), config.Settings{Model: a.Model, Strategy: a.Strategy})
	root := s.root
	s.mu.Unlock()
	if root == "" {
		return nil, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: no workspace folder is open; open the project's folder so the agent knows what it may read and change")
	}
	if s.opts.FindModel != nil {
		var err error
		if settings, err = s.opts.FindModel(context.Background(), settings); err != nil {
			return nil, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: "+err.Error())
		}
	}
	if err := settings.Validate(); err != nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: "+err.Error())
	}
	provider, err := s.opts.NewProvider(context.Background(), settings, nil)
	if err != nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: "+err.Error())
	}
	prompt := s.taskPrompt(a, root)
	if a.Session != "" {
		if err := s.loadSession(a.Session); err != nil {
			return nil, err
		}
	}

	s.mu.Lock()
	session := a.Session
	if session == "" {
		session = s.session
	}
	history, ok := s.sessions[session]
	if !ok {
		s.mu.Unlock()
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("no session %q", session))
	}
	// A second ask in a session whose run is still going waits its turn:
	// both continue one conversation, so they take turns on its history.
	var ahead *run
	for _, r := range s.runs {
		if st, _, _ := r.snapshot(); r.session == session && st == runRunning && (ahead == nil || idNumber(r.id) > idNumber(ahead.id)) {
			ahead = r
		}
	}
	r := s.newRunLocked(session, prompt, settings, history)
	if ahead != nil {
		r.after = ahead
	}
	s.mu.Unlock()

	s.startRun(r, provider)
	result := askResult{RunID: r.id, ProposalID: r.proposalID, Session: session}
	if !a.Wait {
		return result, nil
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		r.cancel()
		<-r.done
		return nil, ctx.Err()
	}
	result.State, result.Answer, _ = r.snapshot()
	result.Notes = r.pendingNotes()
	s.mu.Lock()
	if p, ok := s.proposals[r.proposalID]; ok {
		result.Diff = p.diff()
	}
	s.mu.Unlock()
	if _, _, err := r.snapshot(); err != nil {
		result.Answer = err.Error()
	}
	return result, nil
}

// taskPrompt adds what the user was looking at: the file, the selection with
// line numbers, and the diagnostics the action was made for.
func (s *Server) taskPrompt(a askArgs, root string) string {
	if a.URI == "" {
		return a.Prompt
	}
	path, err := pathOf(a.URI)
	if err != nil {
		return a.Prompt
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = path
	}
	var b strings.Builder
	b.WriteString(a.Prompt)
	fmt.Fprintf(&b, "\n\nFile: %s", filepath.ToSlash(rel))
	text, _, exists, _ := s.currentText(path)
	if a.Range != nil && exists {
		s.mu.Lock()
		enc := s.caps.encoding
		s.mu.Unlock()
		start, end := enc.offset(text, a.Range.Start), enc.offset(text, a.Range.End)
		first := a.Range.Start.Line + 1
		if start < end {
			fmt.Fprintf(&b, " (lines %d-%d selected)\n\n```\n", first, a.Range.End.Line+1)
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

// latestProposalLocked resolves an empty id to the newest pending proposal.
func (s *Server) proposalLocked(id string) (*proposal, error) {
	if id == "" {
		var ids []string
		for pid, p := range s.proposals {
			if p.state == proposalPending {
				ids = append(ids, pid)
			}
		}
		if len(ids) == 0 {
			return nil, jsonrpc2.NewError(codeRequestFailed, "there is no pending proposal")
		}
		sort.Slice(ids, func(i, j int) bool { return idNumber(ids[i]) > idNumber(ids[j]) })
		id = ids[0]
	}
	p, ok := s.proposals[id]
	if !ok {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("no proposal %q", id))
	}
	return p, nil
}

func idNumber(id string) int {
	n, _ := strconv.Atoi(id[strings.LastIndexByte(id, '-')+1:])
	return n
}

func (s *Server) applyProposal(ctx context.Context, id string) (any, error) {
	s.mu.Lock()
	p, err := s.proposalLocked(id)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	applied, reason, err := s.sendProposal(ctx, p.id)
	if err != nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, fmt.Sprintf("%s not applied: %v", p.id, err))
	}
	return map[string]any{"id": p.id, "applied": applied, "reason": reason}, nil
}

func (s *Server) discardProposal(id string) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.proposalLocked(id)
	if err != nil {
		return nil, err
	}
	if p.state != proposalPending {
		return nil, jsonrpc2.NewError(codeRequestFailed, fmt.Sprintf("%s is already %s", p.id, p.state))
	}
	p.state = proposalDiscarded
	return map[string]any{"id": p.id, "state": p.state}, nil
}

// showProposal opens the proposal's unified diff as a document and returns it,
// so clients without showDocument can display it themselves.
func (s *Server) showProposal(ctx context.Context, id string) (any, error) {
	s.mu.Lock()
	p, err := s.proposalLocked(id)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	diff := p.diff()
	u, shown := s.showFile(ctx, p.id+".diff", diff, true)
	return map[string]any{"id": p.id, "diff": diff, "uri": u, "shown": shown}, nil
}

func (s *Server) cancelRuns(id string) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cancelled []string
	for _, r := range s.runs {
		if st, _, _ := r.snapshot(); st == runRunning && (id == "" || r.id == id) {
			r.cancel()
			cancelled = append(cancelled, r.id)
		}
	}
	if id != "" && len(cancelled) == 0 {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("no running run %q", id))
	}
	sort.Strings(cancelled)
	return map[string]any{"cancelled": cancelled}, nil
}

type runStatus struct {
	ID     string `json:"id"`
	State  string `json:"state"`
	Prompt string `json:"prompt"`
	Error  string `json:"error,omitempty"`
	// PendingNotes wait for agent.keepNotes (or the proposal's apply).
	PendingNotes []string  `json:"pendingNotes,omitempty"`
	Usage        llm.Usage `json:"usage"`
}

type proposalStatus struct {
	ID    string   `json:"id"`
	State string   `json:"state"`
	Files []string `json:"files"`
}

func (s *Server) status() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	runs := []runStatus{}
	for _, r := range s.runs {
		st, _, err := r.snapshot()
		rs := runStatus{ID: r.id, State: st, Prompt: summarize(r.prompt, 80), PendingNotes: r.pendingNotes(), Usage: r.usageSoFar()}
		if err != nil {
			rs.Error = err.Error()
		}
		runs = append(runs, rs)
	}
	sort.Slice(runs, func(i, j int) bool { return idNumber(runs[i].ID) < idNumber(runs[j].ID) })
	proposals := []proposalStatus{}
	for _, p := range s.proposals {
		ps := proposalStatus{ID: p.id, State: p.state}
		for _, c := range p.changes {
			ps.Files = append(ps.Files, c.Path)
		}
		proposals = append(proposals, ps)
	}
	sort.Slice(proposals, func(i, j int) bool { return idNumber(proposals[i].ID) < idNumber(proposals[j].ID) })
	var breakers []string
	if s.opts.Breakers != nil {
		breakers = s.opts.Breakers()
	}
	sb := tools.SandboxLevel()
	return map[string]any{
		"notes":    s.memory.Notes(),
		"breakers": breakers,
		"session":  s.session, "root": s.root, "settings": s.settingsLocked().String(),
		"positionEncoding": string(s.caps.encoding.kind()), "runs": runs, "proposals": proposals,
		"sandbox": map[string]string{"level": string(sb.Level), "detail": sb.String()},
		// The facts agent-lsp doctor checks that need no network.
		"toolProtocol": cmp.Or(s.settingsLocked().ToolProtocol, "native"), "configWarnings": s.configNotes,
	}
}

// loadSession makes session id available, reading it from disk the first
// time (a session from agent.listSessions that no run used yet).
func (s *Server) loadSession(id string) error {
	s.mu.Lock()
	_, loaded := s.sessions[id]
	s.mu.Unlock()
	if loaded {
		return nil
	}
	h, err := s.store.Load(id)
	if err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("no session %q (agent.listSessions lists them)", id))
	}
	s.mu.Lock()
	if _, raced := s.sessions[id]; !raced {
		s.sessions[id] = h
	}
	s.mu.Unlock()
	return nil
}

// switchSession makes id the current session, loading it from disk.
func (s *Server) switchSession(id string) (any, error) {
	if err := s.loadSession(id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.session = id
	return map[string]any{"session": id, "messages": s.sessions[id].Len()}, nil
}
