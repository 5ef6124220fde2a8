package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// clientCaps is what the client said it can do, reduced to what we use.
type clientCaps struct {
	encoding        encoding
	annotations     bool // changeAnnotationSupport: needsConfirmation shows a preview
	documentChanges bool
	createFiles     bool
	progress        bool
	showDocument    bool
	// promptInput: the client asks for agent.ask's prompt itself (our VS Code
	// and Neovim clients say so under experimental.agentLsp); others get an
	// instruction-comment template instead.
	promptInput bool
	// inlineCompletion: textDocument/inlineCompletion (LSP 3.18).
	inlineCompletion bool
	// userSettings: the client's pushed settings are the user's alone (our
	// VS Code client: machine-scoped settings). Others' pushes are filtered
	// like an untrusted project file (config.UntrustedPush).
	userSettings bool
}

func readCaps(c protocol.ClientCapabilities) clientCaps {
	var caps clientCaps
	if c.General != nil && slices.Contains(c.General.PositionEncodings, protocol.PositionEncodingKindUTF8) {
		caps.encoding = utf8Enc
	}
	if w := c.Workspace; w != nil && w.WorkspaceEdit != nil {
		caps.annotations = w.WorkspaceEdit.ChangeAnnotationSupport != nil
		caps.documentChanges = w.WorkspaceEdit.DocumentChanges != nil && *w.WorkspaceEdit.DocumentChanges
		caps.createFiles = slices.Contains(w.WorkspaceEdit.ResourceOperations, protocol.ResourceOperationKindCreate)
	}
	if w := c.Window; w != nil {
		caps.progress = w.WorkDoneProgress != nil && *w.WorkDoneProgress
		caps.showDocument = w.ShowDocument != nil && w.ShowDocument.Support
	}
	caps.inlineCompletion = c.TextDocument != nil && c.TextDocument.InlineCompletion != nil
	var experimental struct {
		AgentLsp struct {
			PromptInput  bool `json:"promptInput"`
			UserSettings bool `json:"userSettings"`
		} `json:"agentLsp"`
	}
	if len(c.Experimental) > 0 && json.Unmarshal(c.Experimental, &experimental) == nil {
		caps.promptInput = experimental.AgentLsp.PromptInput
		caps.userSettings = experimental.AgentLsp.UserSettings
	}
	return caps
}

func (s *Server) initialize(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.InitializeParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.initDone {
		s.mu.Unlock()
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
	}
	s.mu.Unlock()

	root := workspaceRoot(&params)
	fileSettings, warnings, err := config.Load(root, s.opts.Env)
	if err != nil {
		// A broken config file must not keep the editor from starting us;
		// runs report it when they start.
		warnings = append(warnings, err.Error())
	}
	var initSettings config.Settings
	if len(params.InitializationOptions) > 0 {
		if err := json.Unmarshal(params.InitializationOptions, &initSettings); err != nil {
			warnings = append(warnings, fmt.Sprintf("initializationOptions: %v", err))
		}
	}
	caps := readCaps(params.Capabilities)
	initAsSent := initSettings
	initAsSent.Fallback = slices.Clone(initSettings.Fallback) // filtered in place below
	if !caps.userSettings {
		// Helix merges a repository's .helix/languages.toml into these.
		warnings = append(warnings, config.UntrustedInitOptions(fileSettings, &initSettings)...)
	}
	stateDir := agent.StateDir(s.opts.Env, root)
	s.sessions.open(agent.NewSessionStore(stateDir))
	s.progress.setSupported(caps.progress)
	s.mu.Lock()
	s.initDone, s.root, s.caps = true, root, caps
	s.memory = agent.NewMemory(stateDir)
	s.fileSettings, s.initSettings, s.initAsSent, s.configNotes = fileSettings, initSettings, initAsSent, warnings
	s.policy = tools.NewPolicy(s.settingsLocked().EffectiveAllowlist(tools.DefaultAllowlist))
	s.mu.Unlock()
	if root == "" {
		warnings = append(warnings, "no workspace folder: open a folder to use the agent")
	}
	for _, w := range warnings {
		s.logMessage(ctx, protocol.MessageTypeWarning, "agent-lsp: "+w)
	}

	openClose, change := true, protocol.TextDocumentSyncKindIncremental
	kinds := []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactorRewrite, protocol.CodeActionKindSource}
	version := s.opts.Version
	result := &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding:       caps.encoding.kind(),
			TextDocumentSync:       &protocol.TextDocumentSyncOptions{OpenClose: &openClose, Change: &change},
			CodeActionProvider:     &protocol.CodeActionOptions{CodeActionKinds: kinds},
			ExecuteCommandProvider: protocol.ExecuteCommandOptions{Commands: commandNames()},
		},
		ServerInfo: protocol.ServerInfo{Name: "agent-lsp", Version: protocol.NewOptional(version)},
	}
	// Completion is offered where the client has inline completion, and as
	// completion items only where the user turned those on (they would
	// otherwise join every client's completion list).
	if caps.inlineCompletion {
		result.Capabilities.InlineCompletionProvider = protocol.Boolean(true)
	}
	if s.settings().Completion.ItemsOn() {
		result.Capabilities.CompletionProvider = &protocol.CompletionOptions{}
	}
	return result, nil
}

// workspaceRoot picks the first workspace folder, then rootUri, then rootPath,
// then the working directory — unless that is / or the home directory (an
// editor with no folder open): "" then, and runs are refused rather than let
// the agent roam the whole disk.
func workspaceRoot(p *protocol.InitializeParams) string {
	if folders, ok := p.WorkspaceFolders.Get(); ok && len(folders) > 0 {
		if path, err := pathOf(folders[0].URI); err == nil {
			return path
		}
	}
	if p.RootURI != nil {
		if path, err := pathOf(*p.RootURI); err == nil {
			return path
		}
	}
	if rp, ok := p.RootPath.Get(); ok && rp != "" {
		return rp
	}
	wd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	if wd == "/" || wd == home {
		return ""
	}
	return wd
}

func (s *Server) shutdown(context.Context, jsonrpc2.RawMessage) (any, error) {
	s.runs.cancelAll()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shutdownSeen = true
	return nil, nil
}

func (s *Server) exit(context.Context, jsonrpc2.RawMessage) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdownSeen {
		s.exitCode = 0
	}
	select {
	case <-s.exited:
	default:
		close(s.exited)
	}
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
	s.mu.Lock()
	var ignored []string
	if !s.caps.userSettings {
		asPushed := user
		asPushed.Fallback = slices.Clone(user.Fallback) // UntrustedPush filters it in place
		ignored = config.UntrustedPush(config.Merge(s.fileSettings, s.initSettings), &user)
		if reflect.DeepEqual(config.Merge(s.initAsSent, asPushed), config.Merge(s.initAsSent, user)) {
			ignored = nil // it only repeats initializationOptions (Helix pushes its config again)
		}
	}
	s.pushedSettings = user
	// The allowlist may change; what the user allowed "always" stays allowed.
	s.policy.SetAllowlist(s.settingsLocked().EffectiveAllowlist(tools.DefaultAllowlist))
	s.mu.Unlock()
	for _, w := range ignored {
		s.logMessage(ctx, protocol.MessageTypeWarning, "agent-lsp: "+w)
	}
	return nil, nil
}

// settingsLocked is the effective configuration: files and environment, then
// the editor's settings (initializationOptions, then the latest
// didChangeConfiguration). Secrets always come from the environment.
func (s *Server) settingsLocked() config.Settings {
	editor := config.Merge(s.initSettings, s.pushedSettings)
	if s.pushedSettings.Allowlist != nil {
		// A pushed allowlist is the whole list now: an entry the user removed
		// must stop being allowed, not live on from initialize.
		editor.Allowlist = s.pushedSettings.Allowlist
	}
	return config.Merge(s.fileSettings, editor)
}

func (s *Server) didOpen(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.DidOpenTextDocumentParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	return nil, s.docs.open(params.TextDocument)
}

func (s *Server) didChange(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.DidChangeTextDocumentParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	return nil, s.docs.change(&params, s.clientCaps().encoding)
}

func (s *Server) didClose(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.DidCloseTextDocumentParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	return nil, s.docs.close(params.TextDocument.URI)
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
