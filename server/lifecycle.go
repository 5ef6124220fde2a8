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
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/server/documents"
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

// clientCaps is what the client said it can do, reduced to what we use.
type clientCaps struct {
	encoding documents.Encoding
	// applyEdit: the client takes workspace/applyEdit (ALE says it does
	// not); otherwise a proposal is applied by a code action carrying its edit.
	applyEdit       bool
	annotations     bool // changeAnnotationSupport: needsConfirmation shows a preview
	documentChanges bool
	createFiles     bool
	progress        bool
	showDocument    bool
	// oneRowMessages: the client draws a message on one row, its line
	// breaks dropped and cut at the window's width (Helix).
	oneRowMessages bool
	// messageActions: the client declared it answers showMessageRequest with
	// actions; otherwise approvals are also offered as code actions.
	messageActions bool
	// promptInput: the client asks for agent.ask's prompt itself (our VS Code
	// and Neovim clients say so under experimental.agentLsp); others get an
	// instruction-comment template instead.
	promptInput bool
	// showsAnswers: the client shows a waited run's answer and a shown
	// proposal's diff from the command's result itself (our Neovim plugin
	// says so under experimental.agentLsp): no showDocument opens a second
	// copy in a window of its own.
	showsAnswers bool
	// inlineCompletion: textDocument/inlineCompletion (LSP 3.18).
	inlineCompletion bool
	// inlineRangeAnywhere: the client shows and applies an inline
	// completion item whose range is away from the cursor (Neovim 0.12's
	// vim.lsp.inline_completion draws it at the range and replaces it);
	// others get a next edit as an item only on the cursor's line.
	inlineRangeAnywhere bool
	// showsInlineEdits: the client asks textDocument/copilotInlineEdit and
	// shows the edits itself (our clients say so under
	// experimental.agentLsp): next edits are not also inline completions
	// or suggested in the background.
	showsInlineEdits bool
	// newFileLine: a file the client creates holds one empty line, which
	// the new file's text replaces (coc.nvim: Vim's empty buffer is a line,
	// "\n" to coc); elsewhere it is empty, and the text is inserted.
	newFileLine bool
	// commandArgs: the client can run a workspace command with arguments;
	// Helix cannot (25.01's :lsp-workspace-command passes none), so what the
	// user is told to do names the code action alone.
	commandArgs bool
	// userSettings: the client's pushed settings are the user's alone (our
	// VS Code client: machine-scoped settings). Others' pushes are filtered
	// like an untrusted project file (config.UntrustedPush).
	userSettings bool
}

func readCaps(c protocol.ClientCapabilities) clientCaps {
	var caps clientCaps
	if g := c.General; g != nil {
		// UTF-8 is cheapest for us; UTF-32 is what a client counting code
		// points (Emacs) must ask for; UTF-16 is the default.
		switch {
		case slices.Contains(g.PositionEncodings, protocol.PositionEncodingKindUTF8):
			caps.encoding = documents.UTF8
		case slices.Contains(g.PositionEncodings, protocol.PositionEncodingKindUTF32):
			caps.encoding = documents.UTF32
		}
	}
	caps.applyEdit = c.Workspace != nil && c.Workspace.ApplyEdit != nil && *c.Workspace.ApplyEdit
	if w := c.Workspace; w != nil && w.WorkspaceEdit != nil {
		caps.annotations = w.WorkspaceEdit.ChangeAnnotationSupport != nil
		caps.documentChanges = w.WorkspaceEdit.DocumentChanges != nil && *w.WorkspaceEdit.DocumentChanges
		caps.createFiles = slices.Contains(w.WorkspaceEdit.ResourceOperations, protocol.ResourceOperationKindCreate)
	}
	if w := c.Window; w != nil {
		caps.progress = w.WorkDoneProgress != nil && *w.WorkDoneProgress
		caps.showDocument = w.ShowDocument != nil && w.ShowDocument.Support
		caps.messageActions = w.ShowMessage != nil && w.ShowMessage.MessageActionItem != nil
	}
	caps.inlineCompletion = c.TextDocument != nil && c.TextDocument.InlineCompletion != nil
	var experimental struct {
		AgentLsp struct {
			PromptInput  bool `json:"promptInput"`
			UserSettings bool `json:"userSettings"`
			ShowsAnswers bool `json:"showsAnswers"`
			InlineEdits  bool `json:"showsInlineEdits"`
		} `json:"agentLsp"`
	}
	if len(c.Experimental) > 0 && json.Unmarshal(c.Experimental, &experimental) == nil {
		caps.promptInput = experimental.AgentLsp.PromptInput
		caps.userSettings = experimental.AgentLsp.UserSettings
		caps.showsAnswers = experimental.AgentLsp.ShowsAnswers
		caps.showsInlineEdits = experimental.AgentLsp.InlineEdits
	}
	return caps
}

// reordersChanges says whether the client may send a document's changes
// out of order: Helix before 25.07 sends each from a task of its own
// (fixed upstream in 25.07). A Helix that gives no version, or one that
// does not read as year.month ("25.01.1"), counts as older.
func reordersChanges(info protocol.ClientInfo) bool {
	if info.Name != "helix" {
		return false
	}
	v, _ := info.Version.Get()
	var year, month int
	if _, err := fmt.Sscanf(v, "%d.%d", &year, &month); err != nil {
		return true
	}
	return year < 25 || year == 25 && month < 7
}

func (s *Server) initialize(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.InitializeParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	if s.lifecycle.initialized() {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
	}

	dirs, uris, warnings := workspaceDirs(&params)
	var folders []*folder
	for i, dir := range dirs {
		f, w := s.loadFolder(dir, uris[i])
		warnings = append(warnings, w...)
		folders = append(folders, f)
	}
	noFolder, w := s.loadFolder("", "")
	if len(folders) == 0 {
		warnings = append(warnings, w...)
	}
	primary := noFolder
	if len(folders) > 0 {
		primary = folders[0]
	}
	fileSettings := primary.settings
	var initSettings config.Settings
	// [] is how a Lua client (Neovim's) encodes an empty table: no settings.
	if opts := bytes.TrimSpace(params.InitializationOptions); len(opts) > 0 && !bytes.Equal(opts, []byte("[]")) {
		if err := json.Unmarshal(opts, &initSettings); err != nil {
			warnings = append(warnings, fmt.Sprintf("initializationOptions: %v", err))
		}
	}
	caps := readCaps(params.Capabilities)
	caps.inlineRangeAnywhere = caps.inlineCompletion && params.ClientInfo.Name == "Neovim"
	caps.newFileLine = params.ClientInfo.Name == "coc.nvim"
	caps.commandArgs = params.ClientInfo.Name != "helix"
	if params.ClientInfo.Name == "helix" {
		// Helix (23.10 on) opens a document it is shown, in a split, but
		// does not declare window.showDocument; it draws a message on one row.
		caps.showDocument, caps.oneRowMessages = true, true
	}
	s.docs.ClientMayReorder(reordersChanges(params.ClientInfo))
	initAsSent := initSettings
	initAsSent.Fallback = slices.Clone(initSettings.Fallback) // filtered in place below
	if !caps.userSettings {
		// Helix merges a repository's .helix/languages.toml into these.
		warnings = append(warnings, config.UntrustedInitOptions(fileSettings, &initSettings)...)
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
		s.logMessage(ctx, protocol.MessageTypeWarning, "agent-lsp: "+w)
	}
	if len(folders) > 1 {
		s.logMessage(ctx, protocol.MessageTypeInfo, "agent-lsp: workspace roots: "+roots)
	}

	openClose, change, yes := true, protocol.TextDocumentSyncKindIncremental, true
	kinds := []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactorRewrite, protocol.CodeActionKindSource}
	version := s.opts.Version
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
	if s.workspace.settings().Completion.ItemsOn() {
		result.Capabilities.CompletionProvider = &protocol.CompletionOptions{}
	}
	return result, nil
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
		s.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("agent-lsp: settings ignored: %v", err))
		return nil, nil
	}
	ignored := s.workspace.push(user, s.clientCaps().userSettings)
	for _, w := range ignored {
		s.logMessage(ctx, protocol.MessageTypeWarning, "agent-lsp: "+w)
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
	s.noticeAppliedAt(ctx, params.TextDocument.URI)
	return nil, nil
}

func (s *Server) didChange(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.DidChangeTextDocumentParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	tookSuggestion, err := s.docs.Change(&params, s.clientCaps().encoding)
	if err != nil {
		return nil, err
	}
	if tookSuggestion {
		s.nextEdits.engine.TookOne(params.TextDocument.URI, true)
	}
	s.noticeAppliedAt(ctx, params.TextDocument.URI)
	s.nextEditAfterChange(params.TextDocument.URI)
	return nil, nil
}

// didSave: a file written from a buffer, or one the server never saw open,
// may now hold a proposal.
func (s *Server) didSave(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.DidSaveTextDocumentParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	s.noticeAppliedAt(ctx, params.TextDocument.URI)
	return nil, nil
}

// noticeAppliedAt is noticeApplied for a document's URI.
func (s *Server) noticeAppliedAt(ctx context.Context, u uri.URI) {
	if path, err := s.docs.Path(u); err == nil {
		s.noticeApplied(ctx, path)
	}
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
		s.logMessage(ctx, protocol.MessageTypeWarning, "agent-lsp: commands run at sandbox level "+sb.String()+"; every command that runs the workspace's code asks first")
		return
	}
	s.logMessage(ctx, protocol.MessageTypeInfo, "agent-lsp: commands run at sandbox level "+sb.String())
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
