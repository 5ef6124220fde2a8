package server

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/server/completion"
	"github.com/agent-lsp/agent-lsp/server/nextedit"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/mcp"
)

// The handlers of the commands that manage proposals, runs, sessions and
// notes, with their typed arguments and results (agent.ask has ask.go).

// idArgs name a proposal or run; an empty ID means the latest one.
type idArgs struct {
	ID string `json:"id,omitempty"`
}

type applyResult struct {
	ID      string `json:"id"`
	Applied bool   `json:"applied"`
	Reason  string `json:"reason"` // the client's, when it declined
	// Offered are the new files the client could not create, offered as
	// documents to save instead.
	Offered []offeredFile `json:"offered,omitempty"`
}

func (s *Server) applyProposal(ctx context.Context, a idArgs) (applyResult, error) {
	out, p, err := s.sendProposal(ctx, a.ID)
	if p == nil {
		return applyResult{}, err // no such proposal, or not pending
	}
	if err != nil {
		return applyResult{}, jsonrpc2.NewError(codeRequestFailed, fmt.Sprintf("%s not applied: %v", p.name(), err))
	}
	return out, nil
}

type discardResult struct {
	ID    string        `json:"id"`
	State proposalState `json:"state"`
}

func (s *Server) discardProposal(_ context.Context, a idArgs) (discardResult, error) {
	p, err := s.runs.move(a.ID, proposalDiscarded)
	if err != nil {
		return discardResult{}, err
	}
	s.tellNextRun(p, agentrun.AsideNotAccepted)
	return discardResult{ID: p.name(), State: proposalDiscarded}, nil
}

type showResult struct {
	ID    string  `json:"id"`
	Diff  string  `json:"diff"`
	URI   uri.URI `json:"uri"`
	Shown bool    `json:"shown"` // false: the client cannot show documents
}

// showDiffLimit bounds the diff put in a message, for clients that show no
// documents.
const showDiffLimit = 3000

// showProposal opens the proposal's unified diff as a document and returns it,
// so clients without showDocument can display it themselves.
func (s *Server) showProposal(ctx context.Context, a idArgs) (showResult, error) {
	p, err := s.runs.proposal(a.ID)
	if err != nil {
		return showResult{}, err
	}
	diff := p.diff()
	// Helix, told to take focus, replaces the file's view with the diff;
	// beside it, the file stays in view.
	u, shown := s.showFile(ctx, p.name()+".diff", diff, !s.clientCaps().oneRowMessages)
	ownClient := s.clientCaps().promptInput // our clients show the result's diff themselves
	if !shown && !ownClient {
		// A client that shows no documents and does nothing with a
		// command's result (ALE, vim-lsp, eglot) would show nothing at all.
		// The diff itself, capped: ALE shows a long message in its
		// preview window.
		msg := "agent-lsp: " + p.name() + ": " + diffSummary(diff) + "\n\n" + excerpt(diff, showDiffLimit)
		if u != "" {
			msg += "\n\nThe whole diff: " + u.FsPath()
		}
		s.showMessage(ctx, protocol.MessageTypeInfo, msg)
	}
	return showResult{ID: p.name(), Diff: diff, URI: u, Shown: shown}, nil
}

// diffSummary says what a unified diff changes, a line per file:
// "2 file(s) changed:\n  a.py +3 -1\n  new.txt +2 -0".
func diffSummary(diff string) string {
	type counts struct {
		path           string
		added, removed int
	}
	var files []counts
	old := ""
	for line := range strings.Lines(diff) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "--- "):
			old = strings.TrimPrefix(strings.TrimPrefix(line, "--- "), "a/")
		case strings.HasPrefix(line, "+++ "):
			path := strings.TrimPrefix(strings.TrimPrefix(line, "+++ "), "b/")
			if path == "/dev/null" { // a deletion: named by its --- line
				path = old
			}
			files = append(files, counts{path: path})
		case len(files) == 0:
		case strings.HasPrefix(line, "+"):
			files[len(files)-1].added++
		case strings.HasPrefix(line, "-"):
			files[len(files)-1].removed++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d file(s) changed:", len(files))
	for _, f := range files {
		fmt.Fprintf(&b, "\n  %s +%d -%d", f.path, f.added, f.removed)
	}
	return b.String()
}

type cancelResult struct {
	Cancelled []string `json:"cancelled"`
}

func (s *Server) cancelRuns(_ context.Context, a idArgs) (cancelResult, error) {
	cancelled, err := s.runs.cancel(a.ID)
	return cancelResult{Cancelled: cancelled}, err
}

type sessionResult struct {
	Session string `json:"session"`
}

func (s *Server) newSession(context.Context, noArgs) (sessionResult, error) {
	return sessionResult{Session: s.sessions.startNew()}, nil
}

type sessionsResult struct {
	Current  string              `json:"current"`
	Sessions []agent.SessionInfo `json:"sessions"`
}

func (s *Server) listSessions(context.Context, noArgs) (sessionsResult, error) {
	list, err := s.sessions.list()
	if err != nil {
		return sessionsResult{}, jsonrpc2.NewError(codeRequestFailed, err.Error())
	}
	return sessionsResult{Current: s.sessions.currentID(), Sessions: list}, nil
}

// sessionArgs name a session (agent.listSessions lists them).
type sessionArgs struct {
	ID string `json:"id"`
}

type switchResult struct {
	Session  string `json:"session"`
	Messages int    `json:"messages"`
}

// switchSession makes a session the current one, loading it from disk.
func (s *Server) switchSession(_ context.Context, a sessionArgs) (switchResult, error) {
	if a.ID == "" {
		return switchResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, CommandSwitchSession+" needs a session id: {\"id\": \"…\"} ("+CommandListSessions+" lists them)")
	}
	h, err := s.sessions.switchTo(a.ID)
	if err != nil {
		return switchResult{}, err
	}
	return switchResult{Session: a.ID, Messages: h.Len()}, nil
}

type forgetArgs struct {
	Index int `json:"index,omitempty"`
}

type notesResult struct {
	Forgotten int      `json:"forgotten"`
	Notes     []string `json:"notes"` // what is left
}

func (s *Server) forget(_ context.Context, a forgetArgs) (notesResult, error) {
	memory := s.workspaceMemory()
	n, err := memory.Forget(a.Index)
	if err != nil {
		return notesResult{}, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	return notesResult{Forgotten: n, Notes: memory.Notes()}, nil
}

type keepNotesResult struct {
	ID    string   `json:"id"`
	Kept  int      `json:"kept"`
	Notes []string `json:"notes"` // every note kept now
}

type runPlanResult struct {
	ID      string `json:"id"`
	Running bool   `json:"running"`
}

// statusResult is agent.status: what agent-lsp doctor and a curious user
// want to know, without calling a model.
type statusResult struct {
	Notes            []string          `json:"notes"`
	Breakers         []string          `json:"breakers"`
	Session          string            `json:"session"`
	Root             string            `json:"root"`
	Settings         string            `json:"settings"`
	Allowlist        []string          `json:"allowlist"` // configured, beside the built-in list
	PositionEncoding string            `json:"positionEncoding"`
	Runs             []runStatus       `json:"runs"`
	Proposals        []proposalStatus  `json:"proposals"`
	Sandbox          sandboxStatus     `json:"sandbox"`
	ToolProtocol     string            `json:"toolProtocol"`
	ConfigWarnings   []string          `json:"configWarnings"`
	Completion       completion.Status `json:"completion"`
	NextEdits        nextedit.Status   `json:"nextEdits"`
	// MCP lists the MCP servers a run would use: state, tools, errors.
	MCP []mcp.Status `json:"mcp"`
	// LanguageServers lists the language servers: running, stopped,
	// unavailable (why, a missing one's install command).
	LanguageServers []langserver.Status `json:"languageServers"`
	// Model and Thinking are the next run's (agent.setSessionOptions, else the settings).
	Model    string `json:"model"`
	Thinking string `json:"thinking"`
	// Context is how full the model's window was at the latest model call.
	Context *contextStatus `json:"context,omitempty"`
	// ModelFacts are what is known of Model: its context window, price and
	// image support (the catalog's, or the settings').
	ModelFacts config.ModelFacts `json:"modelFacts"`
}

type runStatus struct {
	ID     string   `json:"id"`
	State  runState `json:"state"`
	Prompt string   `json:"prompt"`
	Error  string   `json:"error,omitempty"`
	// PendingNotes wait for agent.keepNotes (or the proposal's apply).
	PendingNotes []string  `json:"pendingNotes,omitempty"`
	Usage        llm.Usage `json:"usage"`
}

type sandboxStatus struct {
	Level  string `json:"level"`
	Detail string `json:"detail"`
}

func (s *Server) status(context.Context, noArgs) (statusResult, error) {
	runs := []runStatus{}
	for _, r := range s.runs.all() {
		state, _, err := r.result()
		rs := runStatus{ID: r.name(), State: state, Prompt: summarize(r.request, 80), PendingNotes: r.pendingNotes(), Usage: r.usageSoFar()}
		if err != nil {
			rs.Error = err.Error()
		}
		runs = append(runs, rs)
	}
	var breakers []string
	if s.opts.Breakers != nil {
		breakers = s.opts.Breakers()
	}
	sb := tools.SandboxLevel()
	st := statusResult{
		Notes: s.workspaceMemory().Notes(), Breakers: breakers, Session: s.sessions.currentID(),
		Runs: runs, Proposals: s.runs.proposalStatuses(),
		Sandbox: sandboxStatus{Level: string(sb.Level), Detail: sb.String()},
	}
	st.Completion = s.completer.Status(s.workspace.settings())
	st.NextEdits = s.nextEdits.engine.Status(s.workspace.settings())
	root, settings, notes := s.workspace.status()
	st.Root, st.Settings, st.Allowlist, st.PositionEncoding = root, settings.String(), settings.Allowlist, string(s.clientCaps().encoding.Kind())
	st.ToolProtocol, st.ConfigWarnings = cmp.Or(settings.ToolProtocol, "native"), notes
	st.MCP = s.mcp.Status(agentrun.MCPServers(settings, root))
	st.LanguageServers = agentrun.LanguageServerStatus(s.lsp, settings, root)
	model, thinking := s.options.chosen()
	st.Model, st.Thinking, st.Context = cmp.Or(model, settings.Model), cmp.Or(thinking, settings.Thinking), s.options.meter()
	settings.Model = st.Model
	st.ModelFacts = settings.Facts()
	return st, nil
}
