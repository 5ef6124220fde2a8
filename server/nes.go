package server

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/server/documents"
	"github.com/agent-lsp/agent-lsp/server/nextedit"
)

// Next edit suggestions on the LSP wire: textDocument/copilotInlineEdit, as
// GitHub's copilot-language-server serves it (copilot-lsp.nvim and
// copilot.el call it); the same suggestion as an LSP 3.18 inline completion
// item for clients with only that, and as a code action for clients with
// only those (made in the background after their changes, since they never
// ask). The suggestions are server/nextedit's; this file maps them to the
// wire.

const methodInlineEdit = "textDocument/copilotInlineEdit"

// inlineEditParams are copilotInlineEdit's params.
type inlineEditParams struct {
	TextDocument protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	Position     protocol.Position                        `json:"position"`
}

// inlineEdit is one suggested edit, as copilot-language-server answers it.
type inlineEdit struct {
	Text         string                                   `json:"text"`
	Range        protocol.Range                           `json:"range"`
	TextDocument protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	Command      *protocol.Command                        `json:"command,omitempty"`
}

type inlineEditResult struct {
	Edits []inlineEdit `json:"edits"`
}

// nextEdits is next edit suggestions on a connection: the engine, and
// whether the client shows them itself.
type nextEdits struct {
	engine    *nextedit.Engine
	docs      *documents.Store
	caps      *capsRef
	workspace *workspaceConfig
	// asked: the client has asked textDocument/copilotInlineEdit, so it
	// shows next edits itself.
	asked atomic.Bool
}

// showsItself says whether the client shows copilotInlineEdit's edits
// with its own interface.
func (ne *nextEdits) showsItself() bool {
	return ne.asked.Load() || ne.caps.get().showsInlineEdits
}

// env is what the engine needs of the connection now.
func (ne *nextEdits) env() nextedit.Env {
	return nextedit.Env{Settings: ne.workspace.settings(), Encoding: ne.caps.get().encoding, ShownPath: ne.workspace.shownPath}
}

// afterChange has the next edit suggested after a change to
// document u, for a client that will never ask: one with neither
// copilotInlineEdit nor inline completion sees it as the "Apply suggested
// edit" code action.
func (ne *nextEdits) afterChange(u uri.URI) {
	if ne.caps.get().inlineCompletion || ne.showsItself() {
		return
	}
	ne.engine.AfterChange(u, ne.env())
}

func (s *Server) inlineEdit(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params inlineEditParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	return s.nextEdits.suggest(ctx, params)
}

// suggest answers copilotInlineEdit: the next edit at the position, or none.
func (ne *nextEdits) suggest(ctx context.Context, params inlineEditParams) (any, error) {
	ne.asked.Store(true)
	u := params.TextDocument.URI
	edit, err := ne.engine.Suggest(ctx, u, params.TextDocument.Version, params.Position, ne.env())
	switch {
	case errors.Is(err, nextedit.ErrPositionOutside):
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	case err != nil:
		return nil, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: "+err.Error())
	}
	res := inlineEditResult{Edits: []inlineEdit{}}
	if edit != nil {
		id := protocol.VersionedTextDocumentIdentifier{Version: edit.Edition.Version}
		id.URI = u
		cmd := acceptCommand(u, edit.Edition.Version)
		res.Edits = append(res.Edits, inlineEdit{Text: edit.Text, Range: edit.Range, TextDocument: id, Command: &cmd})
	}
	return res, nil
}

// item is the next edit in document u, cursor at pos, as an inline
// completion item, for a client that shows no copilotInlineEdit: nil when
// there is none, or none it can show. LSP 3.18 wants an item's range on
// one line; an edit on the cursor's line is widened to take in the cursor,
// as every client draws that, and one on another line is offered only to a
// client that draws a range anywhere.
func (ne *nextEdits) item(ctx context.Context, u uri.URI, pos protocol.Position) *protocol.InlineCompletionItem {
	if ne.showsItself() {
		return nil
	}
	ed, open := ne.docs.EditionOf(u)
	if !open {
		return nil
	}
	edit, err := ne.engine.Suggest(ctx, u, ed.Version, pos, ne.env())
	if err != nil || edit == nil || edit.Range.Start.Line != edit.Range.End.Line {
		return nil
	}
	caps := ne.caps.get()
	if edit.Range.Start.Line != pos.Line && !caps.inlineRangeAnywhere {
		return nil
	}
	var item *protocol.InlineCompletionItem
	ne.docs.Read(u, func(doc documents.Document, _ documents.History) {
		text := doc.Text
		if doc.Edition() != edit.Edition || !edit.Fits(text) {
			return
		}
		start, end, insert := edit.Start, edit.End, edit.Text
		if edit.Range.Start.Line == pos.Line {
			// The cursor and the edit are in the region: what lies between
			// is bounded.
			cursor := caps.encoding.Offset(text, pos)
			start, end = min(start, cursor), max(end, cursor)
			// Cloned: a concatenation with one part may be that part, a
			// view of the buffer that the next change rewrites.
			insert = strings.Clone(text[start:edit.Start] + insert + text[edit.End:end])
		}
		rng := caps.encoding.SpanRange(text, start, end)
		// Shown where the text it replaces starts its filter text: always.
		filter := strings.Clone(text[start:end])
		item = &protocol.InlineCompletionItem{InsertText: protocol.String(insert), Range: &rng, FilterText: &filter, Command: acceptCommand(u, edit.Edition.Version)}
	})
	return item
}

// acceptEditArgs name the document a suggested edit was for, at the
// version it was suggested for.
type acceptEditArgs struct {
	URI     uri.URI `json:"uri"`
	Version int32   `json:"version"`
}

type acceptEditResult struct {
	Recorded bool `json:"recorded"`
}

// accept is agent.acceptInlineEdit, told by the client that the user accepted a
// suggested edit (after applying it): the document's last edit is marked
// as an accepted suggestion, so the next suggestion builds on it.
func (ne *nextEdits) accept(_ context.Context, a acceptEditArgs) (acceptEditResult, error) {
	ok, newly := ne.docs.Accepted(a.URI, a.Version)
	ne.engine.TookOne(a.URI, newly)
	return acceptEditResult{Recorded: ok}, nil
}

// actions offers the suggestion known for the document, where the
// range touches its lines, as an action that applies it: never asking the
// model.
func (ne *nextEdits) actions(l *actionList, at actionContext) {
	if !at.open {
		return
	}
	doc, rng, caps := at.doc, at.rng, at.caps
	edit := ne.engine.Cached(doc)
	if edit == nil || rng.End.Line < edit.Range.Start.Line || rng.Start.Line > edit.Range.End.Line {
		return
	}
	kind := protocol.CodeActionKindQuickFix
	if !l.wanted(kind) {
		return
	}
	lineA, lineB := actionSpan(doc.Text, edit.Start, edit.End)
	te := protocol.TextEdit{Range: caps.encoding.SpanRange(doc.Text, lineA, lineB),
		NewText: doc.Text[lineA:edit.Start] + edit.Text + doc.Text[edit.End:lineB]}
	we := protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{doc.URI: {te}}}
	if caps.documentChanges {
		version := doc.Version
		we = protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{textDocumentEdit(doc.URI, &version, []protocol.TextEdit{te}, "")}}
	}
	title := "Apply suggested edit"
	if t := strings.TrimSpace(edit.Text); t != "" {
		title += ": " + summarize(t, 60)
	}
	// No command: the server knows the suggestion taken from the change
	// that applies it, and ALE runs an action's command instead of its edit.
	l.actions = append(l.actions, &protocol.CodeAction{Title: title, Kind: &kind, Edit: &we})
}

// wholeLinesBytes is the longest span of lines an "Apply suggested edit"
// replaces whole.
const wholeLinesBytes = 4096

// actionSpan is the bytes an "Apply suggested edit" action replaces for an
// edit of [start, end): whole lines, as a proposal's edits, since ALE reads
// a column as a byte offset, so an edit within a line after non-ASCII text
// lands wrong. Lines too long to send whole (a minified file's) give the
// edit itself where the text before it on its line is ASCII, whose columns
// are bytes in every encoding.
func actionSpan(text string, start, end int) (int, int) {
	a := strings.LastIndexByte(text[:start], '\n') + 1
	b := len(text)
	if nl := strings.IndexByte(text[end:], '\n'); nl >= 0 {
		b = end + nl + 1
	}
	endLine := strings.LastIndexByte(text[:end], '\n') + 1
	if b-a > wholeLinesBytes && isASCII(text[a:start]) && isASCII(text[endLine:end]) {
		return start, end
	}
	return a, b
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// acceptCommand is the command a suggested edit carries: the client runs
// it once it applied the edit.
func acceptCommand(u uri.URI, version int32) protocol.Command {
	raw, _ := json.Marshal(acceptEditArgs{URI: u, Version: version})
	return protocol.Command{Title: "Accept next edit", Command: CommandAcceptInlineEdit, Arguments: []protocol.LSPAny{raw}}
}
