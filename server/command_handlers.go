package server

import (
	"cmp"
	"context"

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

type forgetArgs struct {
	Index int `json:"index,omitempty"`
}

type notesResult struct {
	Forgotten int      `json:"forgotten"`
	Notes     []string `json:"notes"` // what is left
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
		Notes: s.notes.primary().Notes(), Breakers: breakers, Session: s.sessions.currentID(),
		Runs: runs, Proposals: s.runs.proposalStatuses(),
		Sandbox: sandboxStatus{Level: string(sb.Level), Detail: sb.String()},
	}
	st.Completion = s.completer.Status(s.workspace.settings())
	st.NextEdits = s.nextEdits.engine.Status(s.workspace.settings())
	root, settings, notes := s.workspace.status()
	st.Root, st.Settings, st.Allowlist, st.PositionEncoding = root, settings.String(), settings.Allowlist, string(s.caps.get().encoding.Kind())
	st.ToolProtocol, st.ConfigWarnings = cmp.Or(settings.ToolProtocol, "native"), notes
	st.MCP = s.mcp.Status(agentrun.MCPServers(settings, root))
	st.LanguageServers = agentrun.LanguageServerStatus(s.lsp, settings, root)
	model, thinking := s.options.chosen()
	st.Model, st.Thinking, st.Context = cmp.Or(model, settings.Model), cmp.Or(thinking, settings.Thinking), s.options.meter()
	settings.Model = st.Model
	st.ModelFacts = settings.Facts()
	return st, nil
}
