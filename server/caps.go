package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"

	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/server/documents"
)

// capsRef holds what the client can do, stored once at initialize and
// read without a lock by every part of the server that shapes what it
// sends; nil until then.
type capsRef struct{ atomic.Pointer[clientCaps] }

// get is the client's capabilities (none before initialize).
func (c *capsRef) get() clientCaps {
	if caps := c.Load(); caps != nil {
		return *caps
	}
	return clientCaps{}
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

// clientCapsOf is what the client of p can do: what it declared (readCaps),
// and what a client known by its name does beside that.
func clientCapsOf(p *protocol.InitializeParams) clientCaps {
	caps := readCaps(p.Capabilities)
	caps.inlineRangeAnywhere = caps.inlineCompletion && p.ClientInfo.Name == "Neovim"
	caps.newFileLine = p.ClientInfo.Name == "coc.nvim"
	caps.commandArgs = p.ClientInfo.Name != "helix"
	if p.ClientInfo.Name == "helix" {
		// Helix (23.10 on) opens a document it is shown, in a split, but
		// does not declare window.showDocument; it draws a message on one row.
		caps.showDocument, caps.oneRowMessages = true, true
	}
	return caps
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
