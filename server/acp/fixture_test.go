package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/llm/openai"
	"github.com/agent-lsp/agent-lsp/llm/resilience"
	"github.com/agent-lsp/agent-lsp/server/acp"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestMain(m *testing.M) {
	agentrun.LanguageServerStarter = langservertest.Off // a test that wants one starts it
	toolstest.Main(m)
}

// waitFor bounds every wait on the agent; the tests wait on messages, never sleep.
const waitFor = 20 * time.Second

// fixture is the agent on in-process pipes, driven by the SDK's client
// side (editor), a workspace on disk and a scripted OpenAI-wire model
// behind the real SDK.
type fixture struct {
	t      testing.TB
	root   string
	env    map[string]string
	llm    *llmtest.Server
	editor *editor
	conn   *sdk.ClientSideConnection
	served chan struct{}
	stop   func()
}

type fixtureOptions struct {
	env      map[string]string // added to the environment
	caps     *sdk.ClientCapabilities
	provider func(ctx context.Context, s config.Settings) (llm.Provider, error) // overrides the wire model
	// findModel is the process's model detection (FindModel); nil: none.
	findModel func(ctx context.Context, s config.Settings) (config.Settings, error)
}

func newFixture(t *testing.T, files map[string]string, srv *llmtest.Server, o fixtureOptions) *fixture {
	t.Helper()
	f := &fixture{t: t, root: toolstest.WriteTree(t, files), llm: srv, env: map[string]string{
		"XDG_CONFIG_HOME": t.TempDir(), "XDG_STATE_HOME": t.TempDir(), "HOME": t.TempDir(),
	}}
	if srv != nil {
		f.env["AGENT_LSP_MODEL"] = "gpt-test"
		f.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	}
	for k, v := range o.env {
		f.env[k] = v
	}
	f.connect(o)
	return f
}

// connect starts an agent process-alike (Serve on pipes) and the editor's connection to it.
func (f *fixture) connect(o fixtureOptions) {
	t := f.t
	newProvider := o.provider
	if newProvider == nil {
		breakers := resilience.NewBreakers(resilience.BreakerOptions{})
		newProvider = func(ctx context.Context, s config.Settings) (llm.Provider, error) {
			p, err := openai.New(openai.Config{Model: s.Model, APIKey: s.OpenAIKey, BaseURL: s.BaseURL, Thinking: s.Thinking})
			if err != nil {
				return nil, err
			}
			return resilience.Chain(resilience.Options{Breakers: breakers, Retry: resilience.RetryOptions{MaxAttempts: 1}}, resilience.Tier{Provider: p}), nil
		}
	}
	var listModels func(ctx context.Context, s config.Settings) ([]string, error)
	if f.llm != nil {
		listModels = func(ctx context.Context, s config.Settings) ([]string, error) {
			p, err := openai.New(openai.Config{Model: "listing", APIKey: s.OpenAIKey, BaseURL: s.BaseURL})
			if err != nil {
				return nil, err
			}
			return p.Models(ctx)
		}
	}
	env := f.envFunc()
	// OS pipes, as stdio is: a write does not wait for the reader.
	toAgentR, toAgentW := osPipe(t)
	toEditorR, toEditorW := osPipe(t)
	ctx, cancel := context.WithCancel(context.Background())
	f.served = make(chan struct{})
	go func() {
		defer close(f.served)
		acp.Serve(ctx, acp.Options{NewProvider: newProvider, FindModel: o.findModel, ListModels: listModels, Env: env, Version: "test"}, toAgentR, toEditorW)
		toEditorW.Close()
	}()
	f.editor = newEditor(f.root)
	f.conn = sdk.NewClientSideConnection(f.editor, toAgentW, toEditorR)
	f.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	f.stop = func() {
		toAgentW.Close()
		cancel()
		<-f.served
	}
	t.Cleanup(f.stop)
	caps := sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}
	if o.caps != nil {
		caps = *o.caps
	}
	if _, err := f.conn.Initialize(f.ctx(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
}

// envFunc reads the fixture's environment, which is fixed once the agent runs.
func (f *fixture) envFunc() func(string) string {
	env := map[string]string{}
	for k, v := range f.env {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

func (f *fixture) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	f.t.Cleanup(cancel)
	return ctx
}

func (f *fixture) path(rel string) string { return filepath.Join(f.root, filepath.FromSlash(rel)) }

func (f *fixture) disk(rel string) string {
	data, _ := os.ReadFile(f.path(rel))
	return string(data)
}

func (f *fixture) newSession(mcp ...sdk.McpServer) sdk.NewSessionResponse {
	f.t.Helper()
	if mcp == nil {
		mcp = []sdk.McpServer{}
	}
	resp, err := f.conn.NewSession(f.ctx(), sdk.NewSessionRequest{Cwd: f.root, McpServers: mcp})
	if err != nil {
		f.t.Fatalf("session/new: %v", err)
	}
	return resp
}

func (f *fixture) prompt(id sdk.SessionId, blocks ...sdk.ContentBlock) sdk.PromptResponse {
	f.t.Helper()
	resp, err := f.conn.Prompt(f.ctx(), sdk.PromptRequest{SessionId: id, Prompt: blocks})
	if err != nil {
		f.t.Fatalf("session/prompt: %v", err)
	}
	return resp
}

// editor is the client side: its buffers (absolute path → unsaved text,
// over disk), the updates it was sent, and the permission answers it gives.
type editor struct {
	root string

	mu      sync.Mutex // guards the fields below
	buffers map[string]string
	reads   []string
	writes  map[string]string
	updates []sdk.SessionUpdate
	asked   []sdk.RequestPermissionRequest
	// answer picks the option for a permission request; nil allows once.
	answer func(sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome
	// onAsk, when set, runs before answering.
	onAsk   func(sdk.RequestPermissionRequest)
	changed chan struct{} // signalled on every update or request
}

func newEditor(root string) *editor {
	return &editor{root: root, buffers: map[string]string{}, writes: map[string]string{}, changed: make(chan struct{}, 1)}
}

func (e *editor) signal() {
	select {
	case e.changed <- struct{}{}:
	default:
	}
}

func (e *editor) ReadTextFile(ctx context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	e.mu.Lock()
	e.reads = append(e.reads, p.Path)
	text, ok := e.buffers[p.Path]
	e.mu.Unlock()
	if !strings.HasPrefix(p.Path, e.root+string(filepath.Separator)) {
		return sdk.ReadTextFileResponse{}, errors.New("test editor: read outside the workspace: " + p.Path)
	}
	if !ok {
		data, err := os.ReadFile(p.Path)
		if err != nil {
			return sdk.ReadTextFileResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		text = string(data)
	}
	return sdk.ReadTextFileResponse{Content: text}, nil
}

func (e *editor) WriteTextFile(ctx context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.writes[p.Path] = p.Content
	e.buffers[p.Path] = p.Content // an editor writes into its buffer
	return sdk.WriteTextFileResponse{}, nil
}

func (e *editor) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.asked = append(e.asked, p)
	answer, onAsk := e.answer, e.onAsk
	e.mu.Unlock()
	e.signal()
	if onAsk != nil {
		onAsk(p)
	}
	if answer == nil {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(optionOfKind(p, sdk.PermissionOptionKindAllowOnce))}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: answer(p)}, nil
}

func (e *editor) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	e.mu.Lock()
	e.updates = append(e.updates, n.Update)
	e.mu.Unlock()
	e.signal()
	return nil
}

func (e *editor) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("test editor: no terminals")
}

func (e *editor) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("test editor: no terminals")
}

func (e *editor) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("test editor: no terminals")
}

func (e *editor) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("test editor: no terminals")
}

func (e *editor) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("test editor: no terminals")
}

// optionOfKind is the first option of a kind the request offers.
func optionOfKind(p sdk.RequestPermissionRequest, kind sdk.PermissionOptionKind) sdk.PermissionOptionId {
	for _, o := range p.Options {
		if o.Kind == kind {
			return o.OptionId
		}
	}
	return ""
}

func (e *editor) setBuffer(abs, text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.buffers[abs] = text
}

func (e *editor) snapshot() (updates []sdk.SessionUpdate, asked []sdk.RequestPermissionRequest, reads []string, writes map[string]string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	w := map[string]string{}
	for k, v := range e.writes {
		w[k] = v
	}
	return append([]sdk.SessionUpdate(nil), e.updates...), append([]sdk.RequestPermissionRequest(nil), e.asked...), append([]string(nil), e.reads...), w
}

// waitUntil waits for cond over what the editor has seen, on its signals.
func (e *editor) waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(waitFor)
	for !cond() {
		select {
		case <-e.changed:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// agentText is the answer streamed so far (agent_message_chunk texts).
func agentText(updates []sdk.SessionUpdate) string {
	var b strings.Builder
	for _, u := range updates {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

func thoughtText(updates []sdk.SessionUpdate) string {
	var b strings.Builder
	for _, u := range updates {
		if u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil {
			b.WriteString(u.AgentThoughtChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// toolCall is a tool call as the client pieces it together from its start and updates.
type toolCall struct {
	ID        sdk.ToolCallId
	Title     string
	Kind      sdk.ToolKind
	Status    sdk.ToolCallStatus
	Locations []sdk.ToolCallLocation
	Content   []sdk.ToolCallContent
}

func toolCalls(updates []sdk.SessionUpdate) []*toolCall {
	var out []*toolCall
	byID := map[sdk.ToolCallId]*toolCall{}
	for _, u := range updates {
		switch {
		case u.ToolCall != nil:
			tc := &toolCall{ID: u.ToolCall.ToolCallId, Title: u.ToolCall.Title, Kind: u.ToolCall.Kind, Status: u.ToolCall.Status, Locations: u.ToolCall.Locations, Content: u.ToolCall.Content}
			byID[tc.ID] = tc
			out = append(out, tc)
		case u.ToolCallUpdate != nil:
			tc := byID[u.ToolCallUpdate.ToolCallId]
			if tc == nil {
				continue
			}
			if s := u.ToolCallUpdate.Status; s != nil {
				tc.Status = *s
			}
			if u.ToolCallUpdate.Content != nil {
				tc.Content = u.ToolCallUpdate.Content
			}
		}
	}
	return out
}

func findCall(calls []*toolCall, kind sdk.ToolKind, titlePrefix string) *toolCall {
	for _, c := range calls {
		if c.Kind == kind && strings.HasPrefix(c.Title, titlePrefix) {
			return c
		}
	}
	return nil
}

// contentText joins a tool call's text content.
func contentText(c *toolCall) string {
	var b strings.Builder
	for _, tc := range c.Content {
		if tc.Content != nil && tc.Content.Content.Text != nil {
			b.WriteString(tc.Content.Content.Text.Text)
		}
	}
	return b.String()
}

func diffs(c *toolCall) []*sdk.ToolCallContentDiff {
	var out []*sdk.ToolCallContentDiff
	for _, tc := range c.Content {
		if tc.Diff != nil {
			out = append(out, tc.Diff)
		}
	}
	return out
}

func osPipe(t testing.TB) (*os.File, *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
