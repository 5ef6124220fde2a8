package acp

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/tools"
)

// turn is one session/prompt: its run's context and view, and what the
// client has been told so far.
type turn struct {
	a     *Agent
	s     *session
	n     int             // the session's turn number, in tool call ids
	ctx   context.Context // the run's: ends with session/cancel or the connection
	caps  sdk.ClientCapabilities
	files *clientFiles     // the client's buffers; nil when it does not read files for us
	ws    *tools.Workspace // set by openWorkspace
	// outputInterval spaces a running command's output updates.
	outputInterval time.Duration

	mu     sync.Mutex // guards closed and ids, and serialises sends: none after the prompt's answer
	closed bool
	ids    messageIDs

	emu      sync.Mutex            // guards the translation state below (events come from concurrent tools)
	seq      int                   // tool calls started
	calls    map[string]*shownCall // in flight, by scope and the model's call id
	shown    map[string]string     // rel path → its text after the last edit shown as a diff
	streamed strings.Builder       // top-level text streamed since the model was last called
	reasoned strings.Builder       // top-level reasoning streamed since the model was last called
	plan     []sdk.PlanEntry       // the plan strategy's steps, as last sent
	// strategyPlan: the plan strategy made the plan; the model's checklist is not shown.
	strategyPlan bool
	failed       map[int]bool // plan steps (1-based) that failed
}

// shownCall is a tool call the client was told about and that has not ended.
type shownCall struct {
	id      sdk.ToolCallId
	title   string
	kind    sdk.ToolKind
	command string      // execute_command's, for its approval
	seq     int         // the order it started in
	out     *liveOutput // execute_command's output as it runs
}

// startTurn registers a turn on s, refusing a closed session.
func (a *Agent) startTurn(ctx context.Context, s *session, cancel context.CancelFunc, known map[string]string) (*turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, sdk.NewInvalidParams(map[string]any{"error": "session " + string(s.id) + " is closed"})
	}
	s.turns++
	s.cancelRun = cancel
	t := &turn{
		a: a, s: s, n: s.turns, ctx: ctx, caps: a.clientCaps(),
		calls: map[string]*shownCall{}, shown: map[string]string{},
		failed: map[int]bool{}, outputInterval: outputInterval,
	}
	if t.caps.Fs.ReadTextFile {
		t.files = &clientFiles{a: a, sid: s.id, ctx: ctx, known: known}
	}
	return t, nil
}

// endTurn forgets t's cancel once its goroutine is done.
func (s *session) endTurn(t *turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turns == t.n {
		s.cancelRun = nil
	}
}

// finish closes the turn to updates: the prompt is being answered.
func (t *turn) finish() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
}

// send writes one update unless the prompt was answered.
func (t *turn) send(u sdk.SessionUpdate) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.stamp(u)
	if err := t.a.conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: t.s.id, Update: displayable(u)}); err != nil {
		t.a.log.Debug("acp: session/update not sent", "error", err)
	}
}

// message streams text as the agent's answer.
func (t *turn) message(text string) {
	if strings.TrimSpace(text) != "" {
		t.send(sdk.UpdateAgentMessageText(text))
	}
}

// newCallID numbers a tool call of this turn.
func (t *turn) newCallID(kind string) sdk.ToolCallId {
	t.emu.Lock()
	defer t.emu.Unlock()
	return t.newCallIDLocked(kind)
}

func (t *turn) newCallIDLocked(kind string) sdk.ToolCallId {
	t.seq++
	return sdk.ToolCallId(fmt.Sprintf("%s-%d.%d", kind, t.n, t.seq))
}

// callAsking is the tool call an approval is about: the execute_command
// call running command, else the latest call still running (an MCP tool
// asks from inside its call); nil when none is.
func (t *turn) callAsking(command string) *shownCall {
	t.emu.Lock()
	defer t.emu.Unlock()
	var latest *shownCall
	for _, c := range t.calls {
		if c.command != "" && c.command == command {
			return c
		}
		if c.command == "" && (latest == nil || c.seq > latest.seq) {
			latest = c
		}
	}
	return latest
}

// locate names a URI for the model and, for a file inside the workspace,
// gives its absolute path (confined like any path the model gives).
func (s *session) locate(uri string) (label, abs string) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return tools.Printable(uri), ""
	}
	where := ""
	if u.Fragment != "" {
		where = " (" + tools.Printable(u.Fragment) + ")"
	}
	resolved, rel, err := resolveFile(s.view, uri)
	if err != nil {
		return tools.Printable(u.Path) + where, ""
	}
	return "`" + tools.Printable(rel) + "`" + where, resolved
}

// fenced puts text in a code fence longer than any backtick run inside it.
func fenced(text string) string {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	return fence + "\n" + strings.TrimSuffix(text, "\n") + "\n" + fence
}

// cut keeps the head and tail of text past limit bytes, saying what it left out.
func cut(text string, limit int) string {
	if len(text) <= limit {
		return text
	}
	h, tl := limit/2, len(text)-limit/2
	for h > 0 && !utf8.RuneStart(text[h]) {
		h--
	}
	for tl < len(text) && !utf8.RuneStart(text[tl]) {
		tl++
	}
	head, tail := text[:h], text[tl:]
	return fmt.Sprintf("%s\n… (%d bytes left out) …\n%s", head, len(text)-len(head)-len(tail), tail)
}
