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
	// Loaded is how the server is asked whether it loaded a file's package
	// or project (LoadedBy…); "" asks nothing.
	Loaded LoadedProbe
	Logger *slog.Logger
}

// DefaultTimeout bounds a server's answer to one request (initialize
// included: gopls loads the module graph before it answers).
const DefaultTimeout = 60 * time.Second

// maxDiagnosticsPerFile keeps a flood of diagnostics from growing the
// client without end; nobody reads past it.
const maxDiagnosticsPerFile = 500

// ErrNotKnown is why diagnostics of a version could not be had: the server
// did not say them for that version in time (or says nothing of versions).
var ErrNotKnown = errors.New("not known")

// Client speaks LSP to one language server process. Its methods are safe
// for concurrent use, but a document's text is the client's one view:
// whoever syncs documents and reads diagnostics for them holds Use's lock
// for the whole operation (the Session does), and the server's edits go
// to that holder.
type Client struct {
	name    string
	proc    Process
	conn    jsonrpc2.Conn
	timeout time.Duration
	log     *slog.Logger
	roots   []string
	paths   pathMap       // where the server sees the workspace (Relocated)
	exited  chan struct{} // closed when the process ended
	exitErr error         // how it ended, set before exited closes
	loaded  LoadedProbe

	use sync.Mutex // held by one operation on the documents at a time

	mu        sync.Mutex // guards the fields below
	enc       encoding
	caps      serverCaps
	pull      bool                 // textDocument/diagnostic offered (statically or registered)
	tsserver  bool                 // diagnostics pulled from tsserver (ClientOptions.TSServerDiagnostics)
	rebuild   bool                 // ClientOptions.ClangdRebuild
	docs      map[string]*document // by file path: servers spell URIs their own way
	versions  map[string]int32     // the last version sent of each path, open or not: never sent twice
	published map[string]publication
	changed   chan struct{}        // closed and replaced on each publication, and when work under way ends
	working   map[string]time.Time // $/progress tokens begun (or made, at that time) and not ended
	begun     map[string]bool      // of working, those begun
	applyEdit EditHandler          // of Use's holder
}

// EditHandler takes a server's workspace/applyEdit: whether it was
// applied, and why not.
type EditHandler func(WorkspaceEdit) (applied bool, reason string)

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
	ExecuteCommandProvider  struct {
		Commands []string `json:"commands"`
	} `json:"executeCommandProvider"`
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
		name: opts.Name, proc: proc, timeout: opts.Timeout, log: opts.Logger, roots: opts.Roots, loaded: opts.Loaded,
		exited: make(chan struct{}), docs: map[string]*document{}, versions: map[string]int32{}, published: map[string]publication{},
		working: map[string]time.Time{}, begun: map[string]bool{},
		changed: make(chan struct{}), enc: utf16Encoding, tsserver: opts.TSServerDiagnostics, rebuild: opts.ClangdRebuild,
	}
	if r, ok := proc.(*relocated); ok {
		c.paths = r.paths
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
	rootURI := c.uriOf(c.roots[0])
	params := protocol.InitializeParams{
		// nil: in the sandbox's pid namespace our pid is no process of
		// its, and a server watching it would exit at once.
		ProcessID:    nil,
		ClientInfo:   protocol.ClientInfo{Name: "agent-lsp"},
		Capabilities: clientCapabilities(),
	}
	params.WorkspaceFolders = protocol.NewNullable(c.folders())
	//lint:ignore SA1019 a server that predates workspace folders reads its root from rootUri alone
	params.RootURI = &rootURI
	if initOptions != nil {
		raw, err := json.Marshal(initOptions)
		if err != nil {
			return fmt.Errorf("%s: initialization options: %w", c.name, err)
		}
		params.InitializationOptions = raw
	}
	var result struct {
		Capabilities serverCaps `json:"capabilities"`
	}
	if err := c.call(ctx, protocol.MethodInitialize, &params, &result); err != nil {
		return fmt.Errorf("%s: initialize: %w", c.name, err)
	}
	c.mu.Lock()
	c.caps = result.Capabilities
	c.pull = offers(result.Capabilities.DiagnosticProvider)
	if result.Capabilities.PositionEncoding == string(utf8Encoding) {
		c.enc = utf8Encoding
	}
	c.mu.Unlock()
	if err := c.conn.Notify(ctx, protocol.MethodInitialized, &protocol.InitializedParams{}); err != nil {
		return err
	}
	// No settings of ours, said: pyright waits for this before it reads
	// its configuration and answers anything about documents.
	return c.conn.Notify(ctx, protocol.MethodWorkspaceDidChangeConfiguration, &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(`{}`)})
}

// folders are the workspace folders as the server sees them.
func (c *Client) folders() []protocol.WorkspaceFolder {
	out := make([]protocol.WorkspaceFolder, len(c.roots))
	for i, r := range c.roots {
		out[i] = protocol.WorkspaceFolder{URI: c.uriOf(r), Name: r}
	}
	return out
}

// clientCapabilities are what we use: versioned diagnostics, pull
// diagnostics, navigation, rename with document changes, and UTF-8
// positions first.
func clientCapabilities() protocol.ClientCapabilities {
	yes, no := new(bool), new(bool)
	*yes = true
	return protocol.ClientCapabilities{
		General: &protocol.GeneralClientCapabilities{PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF8, protocol.PositionEncodingKindUTF16}},
		TextDocument: &protocol.TextDocumentClientCapabilities{
			Synchronization:    &protocol.TextDocumentSyncClientCapabilities{DynamicRegistration: no},
			PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: yes},
			Diagnostic:         &protocol.DiagnosticClientCapabilities{DynamicRegistration: yes},
			Definition:         &protocol.DefinitionClientCapabilities{LinkSupport: yes},
			References:         &protocol.ReferenceClientCapabilities{},
			DocumentSymbol:     &protocol.DocumentSymbolClientCapabilities{HierarchicalDocumentSymbolSupport: yes},
			Rename:             &protocol.RenameClientCapabilities{PrepareSupport: no},
		},
		Workspace: &protocol.WorkspaceClientCapabilities{
			ApplyEdit: yes,
			WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{DocumentChanges: yes,
				ResourceOperations: []protocol.ResourceOperationKind{protocol.ResourceOperationKindCreate, protocol.ResourceOperationKindRename, protocol.ResourceOperationKindDelete}},
			Configuration:    yes,
			WorkspaceFolders: yes,
			Symbol:           &protocol.WorkspaceSymbolClientCapabilities{},
		},
		Window: &protocol.WindowClientCapabilities{WorkDoneProgress: yes},
	}
}

// call makes one request within the client's timeout; a server that does
// not answer, or that ended, is an error saying so. A call given up (ctx
// ended, or the timeout) is cancelled at the server ($/cancelRequest), so
// that it stops working on it.
func (c *Client) call(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		id, err := c.conn.Call(ctx, method, params, result)
		if ctx.Err() != nil && id.IsValid() {
			c.cancelAtServer(id)
		}
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
		case errors.Is(err, context.Canceled):
			return err
		}
		return c.broken(err)
	case <-c.exited:
		return c.exitError()
	}
}

// cancelAtServer tells the server a request's answer is no longer wanted.
func (c *Client) cancelAtServer(id jsonrpc2.ID) {
	n, ok := id.Number()
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := c.conn.Notify(ctx, protocol.MethodCancelRequest, &protocol.CancelParams{ID: protocol.Integer(int32(n))})
	c.log.Debug("request cancelled at the server", "server", c.name, "id", n, "error", err)
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
	raw := json.RawMessage(req.Params())
	switch req.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		c.publish(raw)
		return nil, nil
	case protocol.MethodWorkspaceConfiguration:
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(raw, &p)
		return make([]any, len(p.Items)), nil // no settings: the server's defaults
	case protocol.MethodProgress:
		c.progress(raw)
		return nil, nil
	case protocol.MethodWindowWorkDoneProgressCreate:
		c.progressCreated(raw)
		return nil, nil
	case protocol.MethodWorkspaceApplyEdit:
		return c.serverEdit(raw), nil
	case protocol.MethodClientRegisterCapability:
		c.register(raw)
		return nil, nil
	case protocol.MethodWorkspaceWorkspaceFolders:
		return c.folders(), nil
	case protocol.MethodWindowShowDocument:
		return &protocol.ShowDocumentResult{Success: false}, nil
	case protocol.MethodClientUnregisterCapability, protocol.MethodWindowShowMessageRequest,
		protocol.MethodWorkspaceDiagnosticRefresh, protocol.MethodWorkspaceSemanticTokensRefresh, protocol.MethodWorkspaceInlayHintRefresh,
		protocol.MethodWorkspaceCodeLensRefresh, protocol.MethodWorkspaceInlineValueRefresh:
		return nil, nil
	}
	if req.IsCall() {
		return nil, jsonrpc2.ErrMethodNotFound
	}
	return nil, nil // logs, progress, telemetry
}

func (c *Client) register(raw json.RawMessage) {
	var p struct {
		Registrations []struct {
			Method string `json:"method"`
		} `json:"registrations"`
	}
	_ = json.Unmarshal(raw, &p)
	for _, r := range p.Registrations {
		if r.Method == protocol.MethodTextDocumentDiagnostic {
			c.mu.Lock()
			c.pull = true
			c.mu.Unlock()
		}
	}
}

// serverEdit hands a server's workspace/applyEdit to the operation that
// holds the client now (Use), whose run stages it; with none, it is
// refused.
func (c *Client) serverEdit(raw json.RawMessage) *protocol.ApplyWorkspaceEditResult {
	var p struct {
		Edit WorkspaceEdit `json:"edit"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return refusedEdit("unreadable edit: " + err.Error())
	}
	c.mu.Lock()
	apply := c.applyEdit
	c.mu.Unlock()
	if apply == nil {
		return refusedEdit("no run is using this server")
	}
	ok, why := apply(p.Edit)
	if !ok {
		return refusedEdit(why)
	}
	return &protocol.ApplyWorkspaceEditResult{Applied: true}
}

func refusedEdit(why string) *protocol.ApplyWorkspaceEditResult {
	return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &why}
}

// Use locks the documents for one operation, whose onEdit takes what the
// server edits meanwhile (nil: refused); the returned function unlocks,
// after which the server's edits are refused until the next Use.
func (c *Client) Use(onEdit EditHandler) (unlock func()) {
	c.use.Lock()
	c.mu.Lock()
	c.applyEdit = onEdit
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.applyEdit = nil
		c.mu.Unlock()
		c.use.Unlock()
	}
}

// Encoding is how the server counts characters.
func (c *Client) encoding() encoding {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.enc
}

// Close ends the server: shutdown and exit, and after a grace the
// process is killed. It returns once the process ended.
func (c *Client) Close() {
	select {
	case <-c.exited:
	default:
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if _, err := c.conn.Call(ctx, protocol.MethodShutdown, nil, nil); err == nil {
			_ = c.conn.Notify(ctx, protocol.MethodExit, nil)
		}
		cancel()
		select {
		case <-c.exited:
		case <-time.After(2 * time.Second):
		}
	}
	c.kill()
}

// kill ends the process and the connection, and waits for the process.
func (c *Client) kill() {
	_ = c.proc.Kill()
	<-c.exited
	_ = c.conn.Close()
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
