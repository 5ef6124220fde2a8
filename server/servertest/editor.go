// Package servertest is a fake editor: the client side of LSP over in-process
// pipes, with buffers that workspace/applyEdit really edits, answers to
// progress, showDocument and showMessageRequest, and a record of everything the
// server sent. Tests wait on what the server sends, never on sleeps.
package servertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Timeout bounds every wait: a server that never sends what a test waits for
// fails the test instead of hanging it.
var Timeout = 20 * time.Second

// Caps selects what the fake editor advertises.
type Caps struct {
	UTF8         bool // offer utf-8 positions
	UTF32        bool // offer utf-32 positions (and utf-16), as an Emacs client counting code points
	Annotations  bool // changeAnnotationSupport (VS Code)
	Progress     bool
	ShowDocument bool
	// NoMessageRequest answers window/showMessageRequest with "Method not found" (Helix).
	NoMessageRequest bool
	// NeverAnswer never answers window/showMessageRequest nor
	// workspace/applyEdit, and declares neither (Vim's ALE).
	NeverAnswer bool
	// NoApplyEdit declares workspace.applyEdit false and no workspaceEdit
	// capabilities at all (ALE).
	NoApplyEdit bool
	// EditsFromCodeActionsOnly declares workspace.applyEdit false yet its
	// workspaceEdit capabilities: it applies the edits code actions carry.
	EditsFromCodeActionsOnly bool
	// ChangesLater sends the didChange of an applied edit a while after
	// answering workspace/applyEdit, as Neovim does (its didChange waits
	// debounce_text_changes, 150 ms).
	ChangesLater bool
	// WritesWhole applies workspace/applyEdit to the files on disk, each
	// written whole, as our VS Code extension does for a file no editor
	// shows: buffers are left as they are, and no didChange is sent.
	WritesWhole bool
	// IgnoreEdits neither applies nor answers workspace/applyEdit.
	IgnoreEdits bool
	// EditError answers workspace/applyEdit with a JSON-RPC error.
	EditError bool
	// DeclareNothing sends empty capabilities: the client says it can do
	// nothing beyond the base protocol.
	DeclareNothing bool
	// PromptInput says the client asks for agent.ask's prompt itself (our
	// VS Code and Neovim clients).
	PromptInput bool
	// NoResourceOperations leaves out resourceOperations: the client cannot
	// create files through a workspace edit.
	NoResourceOperations bool
	// InlineCompletion declares textDocument.inlineCompletion (LSP 3.18).
	InlineCompletion bool
	// UserSettings says the pushed settings are the user's alone (our VS
	// Code client).
	UserSettings bool
	// ShowsAnswers says the client shows a waited run's answer and a shown
	// proposal's diff itself (our Neovim plugin).
	ShowsAnswers bool
	// ShowsInlineEdits says the client asks textDocument/copilotInlineEdit
	// and shows its edits itself (our clients).
	ShowsInlineEdits bool
	// Name is the clientInfo name sent ("Neovim"); none when empty.
	Name string
	// Version is the clientInfo version sent with Name ("25.01.1").
	Version string
	// NewBufferLine: a file the editor creates holds one empty line
	// ("\n"), as coc.nvim's text of an empty Vim buffer does.
	NewBufferLine bool
}

// Plain is a client that speaks only standard LSP and little of it, as
// Emacs's eglot, Helix, Kakoune or Sublime LSP: no prompt box, no
// showDocument, no resource operations, no work-done progress, no change
// annotations.
var Plain = Caps{NoResourceOperations: true}

// Buffer is an open document in the fake editor.
type Buffer struct {
	Text    string
	Version int32
}

// Editor is the fake client. Its fields are guarded by mu; read them through
// the accessor methods or inside Wait.
type Editor struct {
	t        testing.TB
	conn     jsonrpc2.Conn
	caps     Caps
	encoding protocol.PositionEncodingKind // negotiated

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every event
	buffers  map[uri.URI]*Buffer
	logs     []string
	messages []string
	progress []ProgressEvent
	// shownLast is what the user sees last of messages and progress, in
	// the order they came: "message: …" and "progress end: …".
	shownLast []string
	shown     []uri.URI
	edits     []protocol.ApplyWorkspaceEditParams
	asked     []string
	actions   [][]string // the action titles of each showMessageRequest, in order
	// Approve picks the showMessageRequest answer by title; "" dismisses.
	Approve string
	// RejectEdits answers applyEdit with applied: false.
	RejectEdits bool
	// RefuseConfirmed applies nothing yet answers applyEdit with applied:
	// true, as coc.nvim does when the user answers No to the edits it asks
	// to confirm (every annotated one agent-lsp sends).
	RefuseConfirmed bool
	// BeforeApply runs on an applyEdit request before it is applied.
	BeforeApply func()
	// BeforeShow runs on a showDocument request before it is answered,
	// while the editor goes on reading what the server sends.
	BeforeShow func(uri.URI)
}

// Forget drops the logs, messages, progress and shown documents received
// so far, for a benchmark that measures the memory of the server beside
// this editor.
func (e *Editor) Forget() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.logs, e.messages, e.progress, e.shownLast, e.shown = nil, nil, nil, nil, nil
}

// ProgressEvent is one $/progress value.
type ProgressEvent struct {
	Token   string
	Kind    string
	Title   string
	Message string
}

// serverEndWait bounds how long a test's end waits for the server's.
const serverEndWait = 10 * time.Second

// Connect starts serve on one end of a pair of OS pipes (buffered like the
// stdio an editor gives a server; net.Pipe's unbuffered writes would deadlock
// two read loops that answer inline) and returns the editor on the other end,
// speaking Content-Length framed JSON-RPC.
func Connect(t testing.TB, serve func(rwc io.ReadWriteCloser)) *Editor {
	serverEnd, clientEnd := Pipes(t)
	served := make(chan struct{})
	go func() { serve(serverEnd); close(served) }()
	e := &Editor{t: t, changed: make(chan struct{}), buffers: map[uri.URI]*Buffer{}}
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(clientEnd), jsonrpc2.WithCodec(codec{}))
	e.conn.Go(context.Background(), e.handle)
	// The server ends (its language servers and MCP servers stopped) before
	// the test's earlier temp dirs go: a server process still running wrote
	// into them once they were removed.
	t.Cleanup(func() {
		clientEnd.Close()
		select {
		case <-served:
		case <-time.After(serverEndWait):
			t.Logf("the server had not ended %s after the editor closed the connection", serverEndWait)
		}
	})
	return e
}

type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	if raw, ok := v.(jsonrpc2.RawMessage); ok {
		return raw, nil
	}
	return protocol.Marshal(v)
}

// Unmarshal decodes protocol types with protocol's union-aware decoder and
// the tests' own types with encoding/json.
func (codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.PkgPath() == "go.lsp.dev/protocol" {
		return protocol.Unmarshal(data, v)
	}
	return json.Unmarshal(data, v)
}

func (e *Editor) notifyLocked() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// Wait blocks until cond holds, or fails the test. cond is checked after
// every event the server sends; it may call the editor's accessors.
func (e *Editor) Wait(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.After(Timeout)
	for {
		e.mu.Lock()
		ch := e.changed // taken before cond: an event after this closes it
		e.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			e.t.Fatalf("timed out waiting for %s\nlogs:\n%s", what, strings.Join(e.Logs(), "\n"))
		}
	}
}

func (e *Editor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method := req.Method()
	params := append([]byte(nil), req.Params()...)
	switch method {
	case "window/logMessage", "window/showMessage":
		return e.message(method, params)
	case "$/progress":
		return e.progressed(params)
	case "window/workDoneProgress/create":
		return nil, nil
	case "window/showDocument":
		return e.showDocument(ctx, params)
	case "window/showMessageRequest":
		return e.showMessageRequest(ctx, params)
	case "workspace/applyEdit":
		return e.applyEdit(ctx, params)
	}
	if req.IsCall() {
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, method)
	}
	return nil, nil
}

func (e *Editor) message(method string, params []byte) (any, error) {
	var p protocol.LogMessageParams
	protocol.Unmarshal(params, &p)
	e.mu.Lock()
	defer e.mu.Unlock()
	if method == "window/logMessage" {
		e.logs = append(e.logs, p.Message)
	} else {
		e.messages = append(e.messages, p.Message)
		e.shownLast = append(e.shownLast, "message: "+p.Message)
	}
	e.notifyLocked()
	return nil, nil
}

func (e *Editor) progressed(params []byte) (any, error) {
	var p struct {
		Token any `json:"token"`
		Value struct {
			Kind, Title, Message string
		} `json:"value"`
	}
	json.Unmarshal(params, &p)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.progress = append(e.progress, ProgressEvent{Token: fmt.Sprint(p.Token), Kind: p.Value.Kind, Title: p.Value.Title, Message: p.Value.Message})
	e.shownLast = append(e.shownLast, "progress "+p.Value.Kind+": "+p.Value.Message)
	e.notifyLocked()
	return nil, nil
}

func (e *Editor) showDocument(ctx context.Context, params []byte) (any, error) {
	var p protocol.ShowDocumentParams
	protocol.Unmarshal(params, &p)
	e.mu.Lock()
	before := e.BeforeShow
	e.mu.Unlock()
	if before != nil {
		jsonrpc2.Async(ctx) // before may wait for the server's answers
		before(p.URI)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.shown = append(e.shown, p.URI)
	e.notifyLocked()
	return &protocol.ShowDocumentResult{Success: true}, nil
}

func (e *Editor) showMessageRequest(ctx context.Context, params []byte) (any, error) {
	if e.caps.NoMessageRequest {
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "method not found")
	}
	var p protocol.ShowMessageRequestParams
	protocol.Unmarshal(params, &p)
	e.mu.Lock()
	e.asked = append(e.asked, p.Message)
	var titles []string
	for _, a := range p.Actions {
		titles = append(titles, a.Title)
	}
	e.actions = append(e.actions, titles)
	answer := e.Approve
	e.notifyLocked()
	e.mu.Unlock()
	if e.caps.NeverAnswer {
		jsonrpc2.Async(ctx)
		return e.neverAnswer(ctx)
	}
	if answer == "" {
		return jsonrpc2.RawMessage("null"), nil
	}
	return &protocol.MessageActionItem{Title: answer}, nil
}

func (e *Editor) applyEdit(ctx context.Context, params []byte) (any, error) {
	jsonrpc2.Async(ctx) // applying sends didChange back to the server
	if e.caps.EditError {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "the edit could not be applied: a buffer is read-only")
	}
	if e.caps.IgnoreEdits {
		return e.neverAnswer(ctx)
	}
	var p protocol.ApplyWorkspaceEditParams
	if err := protocol.Unmarshal(params, &p); err != nil {
		e.t.Errorf("applyEdit params: %v", err)
		return nil, err
	}
	e.mu.Lock()
	e.edits = append(e.edits, p)
	reject, refuse, before := e.RejectEdits, e.RefuseConfirmed, e.BeforeApply
	e.notifyLocked()
	e.mu.Unlock()
	if before != nil {
		before()
	}
	if refuse {
		return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
	}
	if reject {
		reason := "the user declined"
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}, nil
	}
	apply := e.apply
	if e.caps.WritesWhole {
		apply = e.writeWhole
	}
	if err := apply(p.Edit); err != nil {
		reason := err.Error()
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}, nil
	}
	if e.caps.NeverAnswer { // ALE applies it, and says nothing
		return e.neverAnswer(ctx)
	}
	return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
}

// neverAnswer holds a request unanswered until the server cancels it or
// the connection ends; the handler must have let the editor go on reading
// the server's messages (jsonrpc2.Async, once).
func (e *Editor) neverAnswer(ctx context.Context) (any, error) {
	select {
	case <-ctx.Done():
	case <-e.conn.Done():
	}
	return nil, ctx.Err()
}

// apply edits the buffers as an editor does, checking versions, then tells
// the server with didChange (full text) like a real client.
func (e *Editor) apply(edit protocol.WorkspaceEdit) error {
	e.mu.Lock()
	results, err := e.applyLocked(edit)
	if err != nil {
		e.mu.Unlock()
		return err
	}
	e.notifyLocked()
	versions := map[uri.URI]int32{}
	for _, r := range results {
		versions[r.u] = e.buffers[r.u].Version
	}
	e.mu.Unlock()
	notify := func() {
		for _, r := range results {
			e.conn.Notify(context.Background(), "textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": r.u, "version": versions[r.u]},
				"contentChanges": []any{map[string]any{"text": r.text}},
			})
		}
	}
	if e.caps.ChangesLater {
		time.AfterFunc(changesLater, notify)
		return nil
	}
	notify()
	return nil
}

// editedBuffer is a buffer's text after an edit.
type editedBuffer struct {
	u    uri.URI
	text string
}

// applyLocked applies edit to the buffers, its document changes then its
// plain changes (ALE's, eglot's), and returns the texts edited; e.mu held.
func (e *Editor) applyLocked(edit protocol.WorkspaceEdit) ([]editedBuffer, error) {
	var results []editedBuffer
	for _, dc := range edit.DocumentChanges {
		r, err := e.applyChangeLocked(dc)
		if err != nil {
			return nil, err
		}
		if r != nil {
			results = append(results, *r)
		}
	}
	for _, u := range slices.Sorted(maps.Keys(edit.Changes)) {
		r, err := e.editBufferLocked(u, nil, edit.Changes[u])
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return results, nil
}

// applyChangeLocked applies one document change: a file created (an empty
// buffer), or a buffer edited at the version the change names.
func (e *Editor) applyChangeLocked(dc protocol.DocumentChange) (*editedBuffer, error) {
	switch c := dc.(type) {
	case *protocol.CreateFile:
		if _, exists := e.buffers[c.URI]; exists {
			return nil, fmt.Errorf("%s exists", c.URI)
		}
		e.buffers[c.URI] = &Buffer{Version: 0}
		if e.caps.NewBufferLine {
			e.buffers[c.URI].Text = "\n"
		}
		return nil, nil
	case *protocol.TextDocumentEdit:
		r, err := e.editBufferLocked(c.TextDocument.URI, c.TextDocument.Version, textEditsOf(c))
		return &r, err
	}
	return nil, fmt.Errorf("unsupported document change %T", dc)
}

// editBufferLocked applies edits to the buffer of u, which must be open
// (at version, where one is given).
func (e *Editor) editBufferLocked(u uri.URI, version *int32, edits []protocol.TextEdit) (editedBuffer, error) {
	b, ok := e.buffers[u]
	if !ok {
		return editedBuffer{}, fmt.Errorf("%s is not open in the fake editor", u)
	}
	if version != nil && *version != b.Version {
		return editedBuffer{}, fmt.Errorf("%s: version %d, buffer is at %d", u, *version, b.Version)
	}
	text, err := applyTextEdits(b.Text, edits, e.encoding)
	if err != nil {
		return editedBuffer{}, err
	}
	b.Text = text
	b.Version++
	return editedBuffer{u, text}, nil
}

// textEditsOf are a document edit's edits, their annotations dropped.
func textEditsOf(c *protocol.TextDocumentEdit) []protocol.TextEdit {
	var edits []protocol.TextEdit
	for _, el := range c.Edits {
		switch te := el.(type) {
		case *protocol.TextEdit:
			edits = append(edits, *te)
		case *protocol.AnnotatedTextEdit:
			edits = append(edits, te.TextEdit)
		}
	}
	return edits
}

// changesLater is how long after an edit a ChangesLater editor sends its
// didChange: Neovim's debounce_text_changes.
const changesLater = 150 * time.Millisecond

// writeWhole applies edit to the files on disk, each written whole;
// buffers are left as they are and nothing is sent to the server.
func (e *Editor) writeWhole(edit protocol.WorkspaceEdit) error {
	for _, dc := range edit.DocumentChanges {
		switch c := dc.(type) {
		case *protocol.CreateFile:
			f, err := os.OpenFile(c.URI.FsPath(), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			f.Close()
		case *protocol.TextDocumentEdit:
			if err := e.editFile(c.TextDocument.URI, textEditsOf(c)); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unsupported document change %T", dc)
		}
	}
	for u, edits := range edit.Changes {
		if err := e.editFile(u, edits); err != nil {
			return err
		}
	}
	return nil
}

// editFile applies edits to the file u names on disk.
func (e *Editor) editFile(u uri.URI, edits []protocol.TextEdit) error {
	data, err := os.ReadFile(u.FsPath())
	if err != nil {
		return err
	}
	text, err := applyTextEdits(string(data), edits, e.encoding)
	if err != nil {
		return err
	}
	return os.WriteFile(u.FsPath(), []byte(text), 0o644)
}

// applyTextEdits applies edits given against the same text, last first.
func applyTextEdits(text string, edits []protocol.TextEdit, enc protocol.PositionEncodingKind) (string, error) {
	type span struct {
		start, end int
		text       string
	}
	var spans []span
	for _, te := range edits {
		s, err := offsetOf(text, te.Range.Start, enc)
		if err != nil {
			return "", err
		}
		en, err := offsetOf(text, te.Range.End, enc)
		if err != nil {
			return "", err
		}
		spans = append(spans, span{s, en, te.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start > spans[j].start })
	for _, s := range spans {
		text = text[:s.start] + s.text + text[s.end:]
	}
	return text, nil
}

// offsetOf is the fake editor's own position conversion, written apart from
// the server's so a bug in one is caught by the other.
func offsetOf(text string, p protocol.Position, enc protocol.PositionEncodingKind) (int, error) {
	lines := strings.SplitAfter(text, "\n")
	if int(p.Line) > len(lines) || (int(p.Line) == len(lines) && p.Character > 0) {
		return 0, fmt.Errorf("position %d:%d is past the end", p.Line, p.Character)
	}
	off := 0
	for i := 0; i < int(p.Line); i++ {
		off += len(lines[i])
	}
	if int(p.Line) == len(lines) {
		return off, nil
	}
	line := lines[p.Line]
	units := uint32(0)
	for i, r := range line {
		if units == p.Character {
			return off + i, nil
		}
		units += unitsOf(r, enc)
		if units > p.Character {
			return 0, fmt.Errorf("position %d:%d splits a character", p.Line, p.Character)
		}
	}
	if units == p.Character {
		return off + len(line), nil
	}
	return 0, fmt.Errorf("position %d:%d is past the end of its line", p.Line, p.Character)
}

// Pipes returns the two ends of a duplex connection made of OS pipes.
func Pipes(t testing.TB) (a, b io.ReadWriteCloser) {
	ar, bw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	br, aw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return duplex{ar, aw}, duplex{br, bw}
}

type duplex struct {
	r *os.File
	w *os.File
}

func (d duplex) Read(p []byte) (int, error)  { return d.r.Read(p) }
func (d duplex) Write(p []byte) (int, error) { return d.w.Write(p) }

// Close closes the write side (the peer reads EOF) and the read side.
func (d duplex) Close() error {
	d.w.Close()
	return d.r.Close()
}
