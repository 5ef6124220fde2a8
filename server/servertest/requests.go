package servertest

import (
	"context"
	"encoding/json"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Initialize sends initialize and initialized with the given capabilities.
func (e *Editor) Initialize(root string, caps Caps, initOptions map[string]any) *protocol.InitializeResult {
	e.t.Helper()
	return e.InitializeFolders([]any{root}, caps, initOptions)
}

// InitializeFolders is Initialize with several workspace folders, as a VS
// Code multi-root workspace sends them (rootUri is the first): each a
// path (its URI named after its base name) or a protocol.WorkspaceFolder
// as it is.
func (e *Editor) InitializeFolders(folders []any, caps Caps, initOptions map[string]any) *protocol.InitializeResult {
	e.t.Helper()
	e.caps = caps
	yes := true
	c := map[string]any{
		"workspace": map[string]any{
			"applyEdit": true,
			"workspaceEdit": map[string]any{
				"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"},
			},
		},
		"window": map[string]any{"workDoneProgress": caps.Progress, "showDocument": map[string]any{"support": caps.ShowDocument}},
	}
	if !caps.NoMessageRequest && !caps.NeverAnswer {
		// As VS Code and Neovim do; Helix, ALE and eglot 1.9 do not.
		c["window"].(map[string]any)["showMessage"] = map[string]any{"messageActionItem": map[string]any{"additionalPropertiesSupport": false}}
	}
	if caps.NoResourceOperations {
		delete(c["workspace"].(map[string]any)["workspaceEdit"].(map[string]any), "resourceOperations")
	}
	if caps.NoApplyEdit { // and, as ALE, nothing of workspace edits
		c["workspace"].(map[string]any)["applyEdit"] = false
		delete(c["workspace"].(map[string]any), "workspaceEdit")
	}
	if caps.EditsFromCodeActionsOnly {
		c["workspace"].(map[string]any)["applyEdit"] = false
	}
	if caps.InlineCompletion {
		c["textDocument"] = map[string]any{"inlineCompletion": map[string]any{}}
	}
	if caps.PromptInput || caps.UserSettings || caps.ShowsAnswers || caps.ShowsInlineEdits {
		c["experimental"] = map[string]any{"agentLsp": map[string]any{"promptInput": caps.PromptInput, "userSettings": caps.UserSettings,
			"showsAnswers": caps.ShowsAnswers, "showsInlineEdits": caps.ShowsInlineEdits}}
	}
	if caps.Annotations {
		c["workspace"].(map[string]any)["workspaceEdit"].(map[string]any)["changeAnnotationSupport"] = map[string]any{"groupsOnLabel": yes}
	}
	if caps.UTF8 {
		c["general"] = map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}}
	}
	if caps.UTF32 {
		c["general"] = map[string]any{"positionEncodings": []string{"utf-32", "utf-16"}}
	}
	var wfs []protocol.WorkspaceFolder
	for _, f := range folders {
		switch f := f.(type) {
		case protocol.WorkspaceFolder:
			wfs = append(wfs, f)
		case string:
			name := "ws"
			if len(folders) > 1 {
				name = filepath.Base(f)
			}
			wfs = append(wfs, protocol.WorkspaceFolder{URI: uri.File(f), Name: name})
		}
	}
	if caps.DeclareNothing {
		c = map[string]any{}
	}
	params := map[string]any{"processId": nil, "rootUri": wfs[0].URI, "capabilities": c, "workspaceFolders": wfs}
	if initOptions != nil {
		params["initializationOptions"] = initOptions
	}
	if caps.Name != "" {
		info := map[string]any{"name": caps.Name}
		if caps.Version != "" {
			info["version"] = caps.Version
		}
		params["clientInfo"] = info
	}
	var result protocol.InitializeResult
	if err := e.Call("initialize", params, &result); err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	e.encoding = result.Capabilities.PositionEncoding
	e.Notify("initialized", map[string]any{})
	return &result
}

// ChangeFolders sends workspace/didChangeWorkspaceFolders with the folders
// added and removed, by URI (any scheme, as a client may send it).
func (e *Editor) ChangeFolders(added, removed []uri.URI) {
	e.t.Helper()
	folders := func(us []uri.URI) []protocol.WorkspaceFolder {
		out := []protocol.WorkspaceFolder{}
		for _, u := range us {
			out = append(out, protocol.WorkspaceFolder{URI: u, Name: path.Base(string(u))})
		}
		return out
	}
	e.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{"added": folders(added), "removed": folders(removed)}})
}

// Call sends a request and decodes its result.
func (e *Editor) Call(method string, params, result any) error {
	_, err := e.conn.Call(context.Background(), method, params, result)
	return err
}

// CallCtx is Call with a context, to cancel it ($/cancelRequest is sent by the
// test itself, as clients do).
func (e *Editor) CallCtx(ctx context.Context, method string, params, result any) (jsonrpc2.ID, error) {
	return e.conn.Call(ctx, method, params, result)
}

// Notify sends a notification.
func (e *Editor) Notify(method string, params any) {
	e.t.Helper()
	if err := e.conn.Notify(context.Background(), method, params); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

// Open opens a buffer with text (which need not be on disk).
func (e *Editor) Open(u uri.URI, text string) {
	e.mu.Lock()
	e.buffers[u] = &Buffer{Text: text, Version: 1}
	e.mu.Unlock()
	e.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "text", "version": 1, "text": text}})
}

// Type replaces the buffer's text as a user typing would, with an incremental
// change covering the whole old text.
func (e *Editor) Type(u uri.URI, text string) {
	e.mu.Lock()
	b := e.buffers[u]
	old := b.Text
	b.Text = text
	b.Version++
	v := b.Version
	e.mu.Unlock()
	lines := strings.Count(old, "\n")
	last := old[strings.LastIndexByte(old, '\n')+1:]
	end := map[string]any{"line": lines, "character": width(last, e.encoding)}
	e.Notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": u, "version": v},
		"contentChanges": []any{map[string]any{
			"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": end}, "text": text}},
	})
}

// width is s's length in the position encoding's units.
func width(s string, enc protocol.PositionEncodingKind) uint32 {
	n := uint32(0)
	for _, r := range s {
		n += unitsOf(r, enc)
	}
	return n
}

// unitsOf is how many of the encoding's units r takes (UTF-16 where the
// server named none).
func unitsOf(r rune, enc protocol.PositionEncodingKind) uint32 {
	switch {
	case enc == protocol.PositionEncodingKindUTF8:
		return uint32(utf8.RuneLen(r))
	case enc == protocol.PositionEncodingKindUTF32 || r < 0x10000:
		return 1
	}
	return 2
}

// Command runs workspace/executeCommand with one argument object.
func (e *Editor) Command(command string, arg any, result any) error {
	params := map[string]any{"command": command}
	if arg != nil {
		params["arguments"] = []any{arg}
	}
	return e.Call("workspace/executeCommand", params, result)
}

// Buffer returns a copy of an open buffer.
func (e *Editor) Buffer(u uri.URI) (Buffer, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, ok := e.buffers[u]
	if !ok {
		return Buffer{}, false
	}
	return *b, true
}

// Logs returns the logMessage lines so far.
func (e *Editor) Logs() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.logs...)
}

// Messages returns the showMessage texts so far.
func (e *Editor) Messages() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.messages...)
}

// MessagesAndProgress returns the messages and progress reports so far in
// the order they came ("message: …", "progress end: …"): a client that
// shows only the latest (Helix) keeps the last.
func (e *Editor) MessagesAndProgress() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.shownLast...)
}

// Progress returns the $/progress events so far.
func (e *Editor) Progress() []ProgressEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]ProgressEvent(nil), e.progress...)
}

// Edits returns the workspace/applyEdit requests so far.
func (e *Editor) Edits() []protocol.ApplyWorkspaceEditParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]protocol.ApplyWorkspaceEditParams(nil), e.edits...)
}

// Shown returns the URIs the server asked to show.
func (e *Editor) Shown() []uri.URI {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]uri.URI(nil), e.shown...)
}

// Asked returns the showMessageRequest prompts so far.
func (e *Editor) Asked() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.asked...)
}

// AskedActions returns the action titles of each showMessageRequest so far.
func (e *Editor) AskedActions() [][]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([][]string(nil), e.actions...)
}

// SetApprove sets the answer to showMessageRequest.
func (e *Editor) SetApprove(title string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.Approve = title
}

// SetBeforeShow runs f, with the document's URI, when a showDocument
// arrives, before it is answered; the editor reads on meanwhile.
func (e *Editor) SetBeforeShow(f func(uri.URI)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.BeforeShow = f
}

// SetRejectEdits makes applyEdit answer applied: false.
func (e *Editor) SetRejectEdits(v bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.RejectEdits = v
}

// SetRefuseConfirmed makes applyEdit apply nothing and answer applied:
// true (coc.nvim's No to "Confirm edits").
func (e *Editor) SetRefuseConfirmed(v bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.RefuseConfirmed = v
}

// SetBeforeApply runs f when an applyEdit arrives, before it is applied.
func (e *Editor) SetBeforeApply(f func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.BeforeApply = f
}

// ProgressEnded reports whether token's progress ended, and how.
func (e *Editor) ProgressEnded(token string) (ProgressEvent, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range e.progress {
		if p.Token == token && p.Kind == "end" {
			return p, true
		}
	}
	return ProgressEvent{}, false
}

// EditCount is the number of applyEdit requests so far.
func (e *Editor) EditCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.edits)
}

// Raw returns a json value for use as a command argument.
func Raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// ApplyEdit applies a workspace edit to the buffers as the editor does when
// the user picks a code action that carries one.
func (e *Editor) ApplyEdit(edit protocol.WorkspaceEdit) error { return e.apply(edit) }
