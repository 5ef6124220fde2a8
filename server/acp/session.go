package acp

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/mcp"
)

// session is one ACP session: a conversation in one workspace, persisted
// with the language server's sessions (agent.SessionStore under the state
// dir, never the workspace), so session/load continues it after a restart.
type session struct {
	id  sdk.SessionId
	cwd string // as the client gave it, cleaned: names the state dir, as LSP's root does
	// roots are cwd's and the client's additionalDirectories, cwd first:
	// a turn's view has them all, starting in cwd (tools/roots.go says how
	// paths name them), and every path is confined to them.
	roots    []tools.Root
	view     *tools.Workspace // the roots on disk, for confining the client's paths
	store    *agent.SessionStore
	memory   *agent.Memory
	settings config.Settings // config.Load's: files, trust rules, environment
	policy   *tools.Policy
	// busy holds one token while a turn runs (until its goroutine ends,
	// which may be after a cancelled prompt was answered): turns of one
	// session take their turn.
	busy chan struct{}
	// pool runs the session's MCP servers: the connection's.
	pool *mcp.Pool

	mu        sync.Mutex // guards the fields below
	history   *agent.History
	mode      sdk.SessionModeId
	models    []string           // the models the provider serves, for the model option
	spent     float64            // US dollars the session's model calls cost, while priced
	unpriced  bool               // a call's price was not known: spent is not the session's cost
	notices   []string           // said to the user at the start of the next turn
	cancelRun context.CancelFunc // the running turn's, or nil
	turns     int                // turns started, for tool call ids
	closed    bool
	announced string // the menu last sent (available_commands_update), "" before the first
}

// NewSession opens a conversation in cwd, the workspace root.
func (a *Agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (resp sdk.NewSessionResponse, err error) {
	defer guard(a.log, "session/new", &err)
	s, err := a.openSession(ctx, p.Cwd, p.AdditionalDirectories, "", p.McpServers)
	if err != nil {
		return resp, err
	}
	return sdk.NewSessionResponse{SessionId: s.id, Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

// LoadSession reopens a stored conversation and replays it as updates
// before answering, as the protocol asks.
func (a *Agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (resp sdk.LoadSessionResponse, err error) {
	defer guard(a.log, "session/load", &err)
	s, err := a.openSession(ctx, p.Cwd, p.AdditionalDirectories, p.SessionId, p.McpServers)
	if err != nil {
		return resp, err
	}
	if err := a.replay(ctx, s); err != nil {
		return resp, err
	}
	return sdk.LoadSessionResponse{Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

// ResumeSession reopens a stored conversation without replaying it.
func (a *Agent) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (resp sdk.ResumeSessionResponse, err error) {
	defer guard(a.log, "session/resume", &err)
	s, err := a.openSession(ctx, p.Cwd, p.AdditionalDirectories, p.SessionId, p.McpServers)
	if err != nil {
		return resp, err
	}
	return sdk.ResumeSessionResponse{Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

// ListSessions lists the stored conversations of cwd, or of every workspace
// opened on this connection when cwd is not given, newest first.
func (a *Agent) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (resp sdk.ListSessionsResponse, err error) {
	defer guard(a.log, "session/list", &err)
	var cwds []string
	if p.Cwd != nil {
		if !filepath.IsAbs(*p.Cwd) {
			return resp, sdk.NewInvalidParams(map[string]any{"error": "cwd must be an absolute path"})
		}
		cwds = []string{filepath.Clean(*p.Cwd)}
	} else {
		cwds = a.openCwds()
	}
	resp.Sessions = []sdk.SessionInfo{}
	for _, cwd := range cwds {
		a.noteListed(cwd)
		list, err := agent.NewSessionStore(agent.StateDir(a.opts.Env, cwd)).List()
		if err != nil {
			return resp, requestError(err)
		}
		for _, info := range list {
			title, updated := tools.Displayable(info.Title), info.Updated.UTC().Format(time.RFC3339)
			resp.Sessions = append(resp.Sessions, sdk.SessionInfo{SessionId: sdk.SessionId(info.ID), Cwd: cwd, Title: &title, UpdatedAt: &updated})
		}
	}
	return resp, nil
}

// CloseSession cancels the session's run and forgets it (its history stays stored).
func (a *Agent) CloseSession(ctx context.Context, p sdk.CloseSessionRequest) (resp sdk.CloseSessionResponse, err error) {
	defer guard(a.log, "session/close", &err)
	a.mu.Lock()
	s, ok := a.sessions[p.SessionId]
	delete(a.sessions, p.SessionId)
	a.mu.Unlock()
	if !ok {
		return resp, sdk.NewInvalidParams(map[string]any{"error": "unknown session " + string(p.SessionId)})
	}
	s.close()
	return resp, nil
}

// Cancel stops the session's turn: the SDK has cancelled the prompt's
// context already; this also reaches a turn that outlived its prompt.
func (a *Agent) Cancel(ctx context.Context, p sdk.CancelNotification) (err error) {
	defer guard(a.log, "session/cancel", &err)
	if s, err := a.session(p.SessionId); err == nil {
		s.cancel()
	}
	return nil
}

// openSession makes the session called id ("" a new one) in cwd, with
// the additional directories as further roots, the connection's,
// replacing (and cancelling) one already open under that id, with the
// client's MCP servers added to its settings. cwd is the session's own
// root: its settings, notes, policy and conversations are cwd's.
func (a *Agent) openSession(ctx context.Context, cwd string, additional []string, id sdk.SessionId, mcpServers []sdk.McpServer) (*session, error) {
	if !filepath.IsAbs(cwd) {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q must be an absolute path", cwd)})
	}
	cwd = filepath.Clean(cwd)
	roots := []tools.Root{{Dir: cwd}}
	for _, d := range additional {
		if !filepath.IsAbs(d) {
			return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("additionalDirectories: %q must be an absolute path", d)})
		}
		roots = append(roots, tools.Root{Dir: filepath.Clean(d)})
	}
	ws, err := tools.NewWorkspaceRoots(roots, 0, nil)
	if err != nil {
		which := "cwd: "
		if len(additional) > 0 {
			which = "cwd or additionalDirectories: "
		}
		return nil, sdk.NewInvalidParams(map[string]any{"error": which + err.Error()})
	}
	settings, warnings, err := config.Load(ws.Root(), a.opts.Env)
	if err != nil {
		return nil, requestError(err)
	}
	stateDir := agent.StateDir(a.opts.Env, cwd)
	s := &session{
		cwd: cwd, roots: ws.Roots(), view: ws, store: agent.NewSessionStore(stateDir), memory: agent.NewMemory(stateDir),
		settings: settings, policy: a.policy(ws.Root(), settings), busy: make(chan struct{}, 1),
		history: &agent.History{}, mode: defaultMode(settings), notices: warnings,
	}
	if id != "" {
		a.settle(id)
		h, err := s.store.Load(string(id))
		if err != nil {
			return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no stored session %q for %s (session/list lists them)", id, cwd)})
		}
		s.id, s.history = id, h
	}
	var mcpNotices []string
	s.settings, mcpNotices = withClientMCP(s.settings, mcpServers)
	s.notices = append(s.notices, mcpNotices...)
	s.pool = a.mcp
	if err := a.findModels(ctx, s); needsSignIn(err) {
		return nil, authRequired(err) // the client offers the sign-in (auth.go)
	}
	a.mcp.Warm(s.mcpServers()) // so their prompts are in the menu soon
	go tools.PrepareSandbox()  // found (its helpers started) before the first turn says it
	a.announceCommands(ctx, s)
	a.mu.Lock()
	defer a.mu.Unlock()
	for s.id == "" {
		if next := sdk.SessionId(s.store.NewID()); a.sessions[next] == nil {
			s.id = next
		}
	}
	if old := a.sessions[s.id]; old != nil {
		old.close()
	}
	a.sessions[s.id] = s
	return s, nil
}

// settle closes the open session called id, if any, and waits for its
// turn to unwind and save (at most shutdownWait), so loading it again
// reads its latest state.
func (a *Agent) settle(id sdk.SessionId) {
	a.mu.Lock()
	old := a.sessions[id]
	a.mu.Unlock()
	if old == nil {
		return
	}
	old.close()
	select {
	case old.busy <- struct{}{}:
		<-old.busy
	case <-time.After(shutdownWait):
		a.log.Warn("acp: the session's last turn is still unwinding; loading what is saved", "session", id)
	}
}

// openCwds lists the workspaces of the open sessions.
func (a *Agent) openCwds() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, s := range a.sessions {
		if !seen[s.cwd] {
			seen[s.cwd] = true
			out = append(out, s.cwd)
		}
	}
	return out
}

// cancel stops the running turn, if any.
func (s *session) cancel() {
	s.mu.Lock()
	cancel := s.cancelRun
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// close cancels the running turn and refuses new ones.
func (s *session) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
}

// takeNotices returns what the next turn should say first, once.
func (s *session) takeNotices() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notices
	s.notices = nil
	return n
}

// resetHistory starts the conversation over (/new).
func (s *session) resetHistory() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history = &agent.History{}
}

// update sends u about s outside a turn (commands, options, usage).
func (a *Agent) update(s *session, u sdk.SessionUpdate) {
	if err := a.conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: s.id, Update: displayable(u)}); err != nil {
		a.log.Debug("acp: session/update not sent", "error", err)
	}
}

// save stores the conversation.
func (s *session) save() error {
	s.mu.Lock()
	h := s.history
	s.mu.Unlock()
	return s.store.Save(string(s.id), h)
}
