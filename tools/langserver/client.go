package langserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// ClientOptions configure a Client.
type ClientOptions struct {
	Name string // the server's, for messages
	// Roots are the workspace folders the server is told of; the first is
	// its root.
	Roots []string
	// InitializationOptions go to initialize as they are.
	InitializationOptions any
	// Timeout bounds initialize and each request (default DefaultTimeout).
	Timeout time.Duration
	// TSServerDiagnostics pulls diagnostics from typescript-language-server's
	// tsserver (typescript.tsserverRequest), which answers after the changes
	// sent before: its pushes carry no version.
	TSServerDiagnostics bool
	// ClangdRebuild: clangd publishes nothing for a version whose text
	// and headers are those of the last it diagnosed, so a new version of
	// the same text asks it to rebuild (its forceRebuild extension).
	ClangdRebuild bool
	Logger        *slog.Logger
}

// DefaultTimeout bounds a server's answer to one request (initialize
// included: gopls loads the module graph before it answers).
const DefaultTimeout = 60 * time.Second

// maxDiagnosticsPerFile keeps a flood of diagnostics from growing the
// client without end; nobody reads past it.
const maxDiagnosticsPerFile = 500

// ErrNotKnown is why diagnostics of a version could not be had: the server
// did not say them for that version in time (or says nothing of versions).
var ErrNotKnown = errors.New("not known yet")

// Client speaks LSP to one language server process. Its methods are safe
// for concurrent use, but a document's text is the client's one view:
// whoever syncs documents and reads diagnostics for them holds Use's lock
// for the whole operation (the Session does).
type Client struct {
	name    string
	proc    Process
	conn    jsonrpc2.Conn
	timeout time.Duration
	log     *slog.Logger
	roots   []string
	exited  chan struct{} // closed when the process ended
	exitErr error         // how it ended, set before exited closes

	use sync.Mutex // held by one operation on the documents at a time

	mu        sync.Mutex // guards the fields below
	enc       encoding
	caps      serverCaps
	pull      bool                 // textDocument/diagnostic offered (statically or registered)
	tsserver  bool                 // diagnostics pulled from tsserver (ClientOptions.TSServerDiagnostics)
	rebuild   bool                 // ClientOptions.ClangdRebuild
	docs      map[string]*document // by file path: servers spell URIs their own way
	published map[string]publication
	changed   chan struct{}   // closed and replaced on each publication, and when work under way ends
	working   map[string]bool // $/progress tokens begun and not ended
	applyEdit func(WorkspaceEdit) (applied bool, reason string)
}

type document struct {
	version int32
	text    string
}

// publication is the last publishDiagnostics of a document.
type publication struct {
	version    int32
	hasVersion bool
	diags      []Diagnostic
	at         time.Time
}

type serverCaps struct {
	PositionEncoding        string          `json:"positionEncoding"`
	DiagnosticProvider      json.RawMessage `json:"diagnosticProvider"`
	DefinitionProvider      json.RawMessage `json:"definitionProvider"`
	ReferencesProvider      json.RawMessage `json:"referencesProvider"`
	DocumentSymbolProvider  json.RawMessage `json:"documentSymbolProvider"`
	WorkspaceSymbolProvider json.RawMessage `json:"workspaceSymbolProvider"`
	RenameProvider          json.RawMessage `json:"renameProvider"`
}

// offers reads a capability that is a boolean or an options object.
func offers(raw json.RawMessage) bool {
	s := string(raw)
	return s != "" && s != "false" && s != "null"
}

// Start speaks to proc: initialize (within the timeout, else the process
// is killed and the error says so), then initialized.
func Start(ctx context.Context, proc Process, opts ClientOptions) (*Client, error) {
	c := &Client{
		name: opts.Name, proc: proc, timeout: opts.Timeout, log: opts.Logger, roots: opts.Roots,
		exited: make(chan struct{}), docs: map[string]*document{}, published: map[string]publication{}, working: map[string]bool{},
		changed: make(chan struct{}), enc: utf16Encoding, tsserver: opts.TSServerDiagnostics, rebuild: opts.ClangdRebuild,
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	go func() {
		c.exitErr = proc.Wait()
		close(c.exited)
	}()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(pipes{proc.Stdout(), proc.Stdin()}), jsonrpc2.WithCodec(jsonCodec{}))
	c.conn.Go(context.Background(), c.handle)
	if err := c.initialize(ctx, opts.InitializationOptions); err != nil {
		c.kill()
		return nil, err
	}
	return c, nil
}

func (c *Client) initialize(ctx context.Context, initOptions any) error {
	folders := make([]map[string]string, len(c.roots))
	for i, r := range c.roots {
		folders[i] = map[string]string{"uri": string(uri.File(r)), "name": r}
	}
	params := map[string]any{
		// null: in the sandbox's pid namespace our pid is no process of
		// its, and a server watching it would exit at once.
		"processId":             nil,
		"clientInfo":            map[string]string{"name": "agent-lsp"},
		"rootUri":               uri.File(c.roots[0]),
		"workspaceFolders":      folders,
		"capabilities":          clientCapabilities,
		"initializationOptions": initOptions,
	}
	var result struct {
		Capabilities serverCaps `json:"capabilities"`
	}
	if err := c.call(ctx, "initialize", params, &result); err != nil {
		return fmt.Errorf("%s: initialize: %w", c.name, err)
	}
	c.mu.Lock()
	c.caps = result.Capabilities
	c.pull = offers(result.Capabilities.DiagnosticProvider)
	if result.Capabilities.PositionEncoding == string(utf8Encoding) {
		c.enc = utf8Encoding
	}
	c.mu.Unlock()
	if err := c.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		return err
	}
	// No settings of ours, said: pyright waits for this before it reads
	// its configuration and answers anything about documents.
	return c.conn.Notify(ctx, "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{}})
}

// clientCapabilities are what we use: versioned diagnostics, pull
// diagnostics, navigation, rename with document changes, and UTF-8
// positions first.
var clientCapabilities = map[string]any{
	"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}},
	"textDocument": map[string]any{
		"synchronization":    map[string]any{"dynamicRegistration": false},
		"publishDiagnostics": map[string]any{"versionSupport": true},
		"diagnostic":         map[string]any{"dynamicRegistration": true},
		"definition":         map[string]any{"linkSupport": true},
		"references":         map[string]any{},
		"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
		"rename":             map[string]any{"prepareSupport": false},
	},
	"workspace": map[string]any{
		"applyEdit":        true,
		"workspaceEdit":    map[string]any{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}},
		"configuration":    true,
		"workspaceFolders": true,
		"symbol":           map[string]any{},
	},
	"window": map[string]any{"workDoneProgress": true},
}

// call makes one request within the client's timeout; a server that does
// not answer, or that ended, is an error saying so.
func (c *Client) call(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.conn.Call(ctx, method, params, result)
		done <- err
	}()
	select {
	case err := <-done:
		var answered *jsonrpc2.Error
		switch {
		case err == nil || errors.As(err, &answered):
			return err
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
			return fmt.Errorf("no answer within %s", c.timeout)
		}
		return c.broken(err)
	case <-c.exited:
		return c.exitError()
	}
}

// broken is the error for a failed write or call: the process's end when
// that is why (it usually is), else err.
func (c *Client) broken(err error) error {
	if err == nil {
		return nil
	}
	select {
	case <-c.exited:
		return c.exitError()
	case <-time.After(time.Second):
		return err
	}
}

func (c *Client) exitError() error {
	if c.exitErr != nil {
		return fmt.Errorf("the server ended: %v", c.exitErr)
	}
	return errors.New("the server ended")
}

// Exited is closed when the server's process ended.
func (c *Client) Exited() <-chan struct{} { return c.exited }

func (c *Client) hasExited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

// Pid is the server process's.
func (c *Client) Pid() int { return c.proc.Pid() }

// handle answers the server's requests and takes its notifications.
// Nothing here waits on the server: it runs on the connection's read loop.
func (c *Client) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if c.log.Enabled(ctx, slog.LevelDebug) {
		c.log.Debug("from the server", "server", c.name, "method", req.Method(), "params", truncate(string(req.Params()), 300))
	}
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		c.publish(json.RawMessage(req.Params()))
		return nil, nil
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(json.RawMessage(req.Params()), &p)
		return make([]any, len(p.Items)), nil // no settings: the server's defaults
	case "$/progress":
		c.progress(json.RawMessage(req.Params()))
		return nil, nil
	case "window/workDoneProgress/create":
		c.progressCreated(json.RawMessage(req.Params()))
		return nil, nil
	case "workspace/applyEdit":
		return c.serverEdit(json.RawMessage(req.Params())), nil
	case "client/registerCapability":
		c.register(json.RawMessage(req.Params()))
		return nil, nil
	case "workspace/workspaceFolders":
		folders := make([]map[string]string, len(c.roots))
		for i, r := range c.roots {
			folders[i] = map[string]string{"uri": string(uri.File(r)), "name": r}
		}
		return folders, nil
	case "window/showDocument":
		return map[string]bool{"success": false}, nil
	case "client/unregisterCapability", "window/showMessageRequest",
		"workspace/diagnostic/refresh", "workspace/semanticTokens/refresh", "workspace/inlayHint/refresh",
		"workspace/codeLens/refresh", "workspace/inlineValue/refresh":
		return nil, nil
	}
	if req.IsCall() {
		return nil, jsonrpc2.ErrMethodNotFound
	}
	return nil, nil // logs, progress, telemetry
}

func (c *Client) publish(raw json.RawMessage) {
	var head struct {
		URI uri.URI `json:"uri"`
	}
	if json.Unmarshal(raw, &head) != nil {
		return
	}
	path := head.URI.FsPath()
	c.mu.Lock()
	_, open := c.docs[path]
	c.mu.Unlock()
	if !open {
		return // only open documents have versions to judge by: a flood of others is not even read
	}
	var p publishParams
	if json.Unmarshal(raw, &p) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, open := c.docs[path]; !open {
		return
	}
	pub := publication{hasVersion: p.Version != nil, at: time.Now()}
	if p.Version != nil {
		pub.version = *p.Version
		if old, ok := c.published[path]; ok && old.hasVersion && old.version > pub.version {
			return // a late push of an older version
		}
	}
	for i, d := range p.Diagnostics {
		if i == maxDiagnosticsPerFile {
			break
		}
		pub.diags = append(pub.diags, d.plain())
	}
	c.published[path] = pub
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *Client) register(raw json.RawMessage) {
	var p struct {
		Registrations []struct {
			Method string `json:"method"`
		} `json:"registrations"`
	}
	_ = json.Unmarshal(raw, &p)
	for _, r := range p.Registrations {
		if r.Method == "textDocument/diagnostic" {
			c.mu.Lock()
			c.pull = true
			c.mu.Unlock()
		}
	}
}

// serverEdit hands a server's workspace/applyEdit to whoever holds the
// client now (the Session stages it); with no one, it is refused.
func (c *Client) serverEdit(raw json.RawMessage) any {
	var p struct {
		Edit WorkspaceEdit `json:"edit"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return map[string]any{"applied": false, "failureReason": "unreadable edit: " + err.Error()}
	}
	c.mu.Lock()
	apply := c.applyEdit
	c.mu.Unlock()
	if apply == nil {
		return map[string]any{"applied": false, "failureReason": "no run is using this server"}
	}
	ok, why := apply(p.Edit)
	return map[string]any{"applied": ok, "failureReason": why}
}

// OnApplyEdit sets who takes the server's workspace/applyEdit (nil: no one).
func (c *Client) OnApplyEdit(f func(WorkspaceEdit) (bool, string)) {
	c.mu.Lock()
	c.applyEdit = f
	c.mu.Unlock()
}

// Use locks the documents for one operation; the returned function unlocks.
func (c *Client) Use() func() {
	c.use.Lock()
	return c.use.Unlock
}

// Encoding is how the server counts characters.
func (c *Client) encoding() encoding {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.enc
}

// Sync makes the server's document at path hold text: didOpen the first
// time, else didChange (the whole text) when it differs or bump is set (a
// new version, so that what the server says next is known to be computed
// after every change sent before). It returns the document's version.
func (c *Client) Sync(ctx context.Context, path, language, text string, bump bool) (int32, error) {
	u := uri.File(path)
	c.mu.Lock()
	d, open := c.docs[path]
	rebuild := false
	switch {
	case !open:
		d = &document{version: 1, text: text}
		c.docs[path] = d
	case d.text != text || bump:
		rebuild = c.rebuild && d.text == text
		d.version++
		d.text = text
	default:
		v := d.version
		c.mu.Unlock()
		return v, nil
	}
	v := d.version
	c.mu.Unlock()
	if !open {
		return v, c.broken(c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{
			"textDocument": protocol.TextDocumentItem{URI: u, LanguageID: protocol.LanguageKind(language), Version: v, Text: text}}))
	}
	change := map[string]any{
		"textDocument":   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		"contentChanges": []map[string]string{{"text": text}}}
	if rebuild {
		change["forceRebuild"] = true
	}
	return v, c.broken(c.conn.Notify(ctx, "textDocument/didChange", change))
}

// Text is what the server has of path, if it is open.
func (c *Client) Text(path string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.docs[path]
	if !ok {
		return "", false
	}
	return d.text, true
}

// Open lists the open documents' paths.
func (c *Client) Open() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.docs))
	for path := range c.docs {
		out = append(out, path)
	}
	return out
}

// CloseDocument sends didClose: the server goes back to the file on disk.
func (c *Client) CloseDocument(ctx context.Context, path string) error {
	c.mu.Lock()
	_, open := c.docs[path]
	delete(c.docs, path)
	delete(c.published, path)
	c.mu.Unlock()
	if !open {
		return nil
	}
	return c.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": textDocument{URI: uri.File(path)}})
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
