package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// lifecycle is the connection's way from initialize to exit.
type lifecycle struct {
	mu           sync.Mutex // guards the fields below
	initDone     bool
	shutdownSeen bool
	exitCode     int           // 1 until an exit follows shutdown
	exited       chan struct{} // closed at exit, under mu; never replaced (done)
}

func newLifecycle() *lifecycle { return &lifecycle{exitCode: 1, exited: make(chan struct{})} }

// initialized says initialize has stored what the other requests read:
// until then, every request but initialize and exit is refused (handle).
func (l *lifecycle) initialized() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.initDone
}

// setInitialized lets the other requests in, once initialize has stored
// what they read.
func (l *lifecycle) setInitialized() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.initDone = true
}

func (l *lifecycle) shutdown() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.shutdownSeen = true
}

// exit ends the connection, cleanly (code 0) after shutdown; a second exit
// changes nothing.
func (l *lifecycle) exit() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shutdownSeen {
		l.exitCode = 0
	}
	select {
	case <-l.exited:
	default:
		close(l.exited)
	}
}

// done is closed at exit.
func (l *lifecycle) done() <-chan struct{} { return l.exited }

// code is the process exit code: 0 after shutdown then exit, 1 otherwise.
func (l *lifecycle) code() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.exitCode
}

func (s *Server) initialize(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.InitializeParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	if s.lifecycle.initialized() {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
	}
	folders, noFolder, warnings := s.workspace.loadAll(&params)
	primary := noFolder
	if len(folders) > 0 {
		primary = folders[0]
	}
	initSettings, w := initOptions(params.InitializationOptions)
	warnings = append(warnings, w...)
	caps := clientCapsOf(&params)
	s.docs.ClientMayReorder(reordersChanges(params.ClientInfo))
	initAsSent := initSettings
	initAsSent.Fallback = slices.Clone(initSettings.Fallback) // filtered in place below
	if !caps.userSettings {
		// Helix merges a repository's .helix/languages.toml into these.
		warnings = append(warnings, config.UntrustedInitOptions(primary.settings, &initSettings)...)
	}
	// Conversations are the window's, kept with its first folder's state.
	s.sessions.open(agent.NewSessionStore(agent.StateDir(s.opts.Env, primary.dir)))
	s.progress.setSupported(caps.progress)
	s.caps.Store(&caps)
	// Every folder's load repeats what the user's own files say.
	warnings = unique(warnings)
	roots := s.workspace.start(noFolder, folders, initSettings, initAsSent, warnings)
	s.lifecycle.setInitialized()
	if len(folders) == 0 {
		warnings = append(warnings, "no workspace folder: open a folder to use the agent")
	}
	for _, w := range warnings {
		s.win.logMessage(ctx, protocol.MessageTypeWarning, "agent-lsp: "+w)
	}
	if len(folders) > 1 {
		s.win.logMessage(ctx, protocol.MessageTypeInfo, "agent-lsp: workspace roots: "+roots)
	}
	return initializeResult(caps, s.opts.Version, s.workspace.settings().Completion.ItemsOn()), nil
}

// loadAll loads the folders the client opened (workspaceDirs), and the
// no-folder that stands for the primary when there are none; warnings
// say what their settings ignored, the no-folder's only where it stands in.
func (w *workspaceConfig) loadAll(p *protocol.InitializeParams) (folders []*folder, noFolder *folder, warnings []string) {
	dirs, uris, warnings := workspaceDirs(p)
	for i, dir := range dirs {
		f, fw := w.load(dir, uris[i])
		warnings = append(warnings, fw...)
		folders = append(folders, f)
	}
	noFolder, nw := w.load("", "")
	if len(folders) == 0 {
		warnings = append(warnings, nw...)
	}
	return folders, noFolder, warnings
}

// initOptions reads initializationOptions as settings; a warning says
// why they were not.
func initOptions(raw protocol.LSPAny) (config.Settings, []string) {
	var settings config.Settings
	// [] is how a Lua client (Neovim's) encodes an empty table: no settings.
	if opts := bytes.TrimSpace(raw); len(opts) > 0 && !bytes.Equal(opts, []byte("[]")) {
		if err := json.Unmarshal(opts, &settings); err != nil {
			return settings, []string{fmt.Sprintf("initializationOptions: %v", err)}
		}
	}
	return settings, nil
}

// initializeResult is what the server says it does, to a client that can
// do caps; completion items only where the user turned them on.
func initializeResult(caps clientCaps, version string, completionItems bool) *protocol.InitializeResult {
	openClose, change, yes := true, protocol.TextDocumentSyncKindIncremental, true
	kinds := []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactorRewrite, protocol.CodeActionKindSource}
	result := &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding:       caps.encoding.Kind(),
			TextDocumentSync:       &protocol.TextDocumentSyncOptions{OpenClose: &openClose, Change: &change, Save: &protocol.SaveOptions{}}, // didSave: a write may settle a proposal
			CodeActionProvider:     &protocol.CodeActionOptions{CodeActionKinds: kinds},
			ExecuteCommandProvider: protocol.ExecuteCommandOptions{Commands: CommandNames()},
			// Every folder is a root, and the next run sees folders added or removed.
			Workspace: &protocol.WorkspaceOptions{WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{
				Supported: &yes, ChangeNotifications: protocol.Boolean(true),
			}},
		},
		ServerInfo: protocol.ServerInfo{Name: "agent-lsp", Version: protocol.NewOptional(version)},
	}
	// Completion is offered where the client has inline completion, and as
	// completion items only where the user turned those on (they would
	// otherwise join every client's completion list).
	if caps.inlineCompletion {
		result.Capabilities.InlineCompletionProvider = protocol.Boolean(true)
	}
	// Next edit suggestions: copilot-language-server declares nothing for
	// textDocument/copilotInlineEdit; we say it under our own name.
	result.Capabilities.Experimental, _ = json.Marshal(map[string]any{"agentLsp": map[string]any{"inlineEdit": true}})
	if completionItems {
		result.Capabilities.CompletionProvider = &protocol.CompletionOptions{}
	}
	return result
}

// initialized readies, beside the read loop, what every run needs once
// per process and the first would otherwise wait for: the sandbox's level
// (probing it starts helpers: tens of milliseconds) and the helper of the
// first command. initialize is answered by then.
func (s *Server) initialized(ctx context.Context, _ jsonrpc2.RawMessage) (any, error) {
	s.sandboxOnce.Do(func() { go s.reportSandboxLevel(besideReader(ctx)) })
	return nil, nil
}

func (s *Server) shutdown(context.Context, jsonrpc2.RawMessage) (any, error) {
	s.runs.cancelAll()
	s.lifecycle.shutdown()
	return nil, nil
}

func (s *Server) exit(context.Context, jsonrpc2.RawMessage) (any, error) {
	s.lifecycle.exit()
	return nil, nil
}

// didChangeConfiguration takes settings either bare or under an "agent-lsp"
// (or "agentLsp") key, as clients nest them differently.
func (s *Server) didChangeConfiguration(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params struct {
		Settings json.RawMessage `json:"settings"`
	}
	if err := json.Unmarshal(raw, &params); err != nil {
		return nil, err
	}
	body := params.Settings
	var sections map[string]json.RawMessage
	if json.Unmarshal(body, &sections) == nil {
		for _, key := range []string{"agent-lsp", "agentLsp", "agent_lsp"} {
			if nested, ok := sections[key]; ok {
				body = nested
				break
			}
		}
	}
	var user config.Settings
	if err := json.Unmarshal(body, &user); err != nil {
		s.win.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("agent-lsp: settings ignored: %v", err))
		return nil, nil
	}
	ignored := s.workspace.push(user, s.caps.get().userSettings)
	for _, w := range ignored {
		s.win.logMessage(ctx, protocol.MessageTypeWarning, "agent-lsp: "+w)
	}
	return nil, nil
}

func (s *Server) didOpen(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.DidOpenTextDocumentParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	if err := s.docs.Open(params.TextDocument); err != nil {
		return nil, err
	}
	s.proposals.noticeAt(ctx, params.TextDocument.URI)
	return nil, nil
}

func (s *Server) didChange(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.DidChangeTextDocumentParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	tookSuggestion, err := s.docs.Change(&params, s.caps.get().encoding)
	if err != nil {
		return nil, err
	}
	if tookSuggestion {
		s.nextEdits.engine.TookOne(params.TextDocument.URI, true)
	}
	s.proposals.noticeAt(ctx, params.TextDocument.URI)
	s.nextEdits.afterChange(params.TextDocument.URI)
	return nil, nil
}

// didSave: a file written from a buffer, or one the server never saw open,
// may now hold a proposal.
func (s *Server) didSave(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.DidSaveTextDocumentParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	s.proposals.noticeAt(ctx, params.TextDocument.URI)
	return nil, nil
}

func (s *Server) didClose(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.DidCloseTextDocumentParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	if err := s.docs.Close(params.TextDocument.URI); err != nil {
		return nil, err
	}
	// What was known of the text dies with it: a reopened file may hold
	// other text at the same version.
	s.completer.Forget(params.TextDocument.URI)
	s.nextEdits.engine.Forget(params.TextDocument.URI)
	return nil, nil
}

// reportSandboxLevel probes the sandbox (and has its first helper started)
// and says in the log what level commands run at.
func (s *Server) reportSandboxLevel(ctx context.Context) {
	sb := tools.PrepareSandbox()
	if sb.Level != sandbox.Full {
		s.win.logMessage(ctx, protocol.MessageTypeWarning, "agent-lsp: commands run at sandbox level "+sb.String()+"; every command that runs the workspace's code asks first")
		return
	}
	s.win.logMessage(ctx, protocol.MessageTypeInfo, "agent-lsp: commands run at sandbox level "+sb.String())
}

// unique is ss without repeats, in order.
func unique(ss []string) []string {
	seen := map[string]bool{}
	return slices.DeleteFunc(ss, func(x string) bool {
		dup := seen[x]
		seen[x] = true
		return dup
	})
}
