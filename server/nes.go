package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
)

// Next edit suggestions: textDocument/copilotInlineEdit, as GitHub's
// copilot-language-server serves it (copilot-lsp.nvim and copilot.el call
// it); the same suggestion as an LSP 3.18 inline completion item for
// clients with only that, and as a code action for clients with only those
// (made in the background after their changes, since they never ask). The
// model sees the document's recent edits (edithistory.go) and rewrites the
// region around the cursor; the server turns the rewrite into the smallest
// edit. Like completion it has its own model client and lock,
// and each document's latest request cancels the ones before it.

const (
	methodInlineEdit   = "textDocument/copilotInlineEdit"
	defaultNESDebounce = 150 * time.Millisecond
)

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

	start, end int // the range in bytes
}

type inlineEditResult struct {
	Edits []inlineEdit `json:"edits"`
}

// nextEditor is the next-edit engine of a connection.
type nextEditor struct {
	s *Server
	// background is the connection's: suggestions made without a request
	// end with it.
	background context.Context
	stop       context.CancelFunc
	// asked: the client has asked textDocument/copilotInlineEdit, so it
	// shows next edits itself.
	asked  atomic.Bool
	latest latestPerDocument // the request going per document

	mu       sync.Mutex // guards everything below
	client   llm.Provider
	builtFor string                // the settings client was built from
	cache    map[uri.URI]nesAnswer // the latest answer per document
	calls    int                   // model calls made
	accepted int                   // suggestions the user accepted
}

// nesAnswer is the answer for a document at a version and position; edit
// is nil for none.
type nesAnswer struct {
	version int32
	pos     protocol.Position
	edit    *inlineEdit
}

func newNextEditor(s *Server) *nextEditor {
	ctx, stop := context.WithCancel(context.Background())
	return &nextEditor{s: s, background: ctx, stop: stop, cache: map[uri.URI]nesAnswer{}}
}

// showsThemItself says whether the client shows copilotInlineEdit's edits
// with its own interface.
func (n *nextEditor) showsThemItself() bool {
	return n.asked.Load() || n.s.clientCaps().showsInlineEdits
}

// afterChange suggests the next edit after a change to document u, at the
// change's end, for a client that will never ask: one with neither
// copilotInlineEdit nor inline completion sees it as the "Apply suggested
// edit" code action. Each change cancels the suggestion before it, so a
// burst of keystrokes makes one model call.
func (n *nextEditor) afterChange(u uri.URI) {
	caps := n.s.clientCaps()
	if n.s.opts.NewNES == nil || caps.inlineCompletion || n.showsThemItself() {
		return
	}
	settings := n.s.workspace.settings()
	language, version, pos, changed := n.s.docs.changeEnd(u, caps.encoding)
	if !changed || !settings.NES.On(language) {
		return
	}
	// The latest now, before the handler returns: a request the client
	// sends after this change must supersede it, never the other way.
	ctx, done := n.latest.begin(n.background, u)
	go func() {
		defer done()
		n.find(ctx, u, version, pos, settings) //nolint:errcheck // no one to tell: the code action shows what it found
	}()
}

// suggest finds the next edit in document u at version, cursor at pos, or
// none. A request for a version the document has left, or superseded by a
// newer request, ends with none.
func (n *nextEditor) suggest(ctx context.Context, u uri.URI, version int32, pos protocol.Position) (*inlineEdit, error) {
	settings := n.s.workspace.settings()
	doc, open := n.s.docs.get(u)
	if !open {
		return nil, nil
	}
	if !validPosition(doc.text, pos) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("position %d:%d is outside the document", pos.Line, pos.Character))
	}
	if !settings.NES.On(doc.language) || n.s.opts.NewNES == nil || version != doc.version {
		return nil, nil
	}
	ctx, done := n.latest.begin(ctx, u)
	defer done()
	return n.find(ctx, u, version, pos, settings)
}

// find is suggest's work once the request is the latest: the cache, the
// debounce, the model.
func (n *nextEditor) find(ctx context.Context, u uri.URI, version int32, pos protocol.Position, settings config.Settings) (*inlineEdit, error) {
	n.mu.Lock()
	cached, hit := n.cache[u]
	n.mu.Unlock()
	if hit && cached.version == version && cached.pos == pos {
		return cached.edit, nil
	}
	debounce := defaultNESDebounce
	if ms := settings.NES.DebounceMS; ms > 0 {
		debounce = time.Duration(ms) * time.Millisecond
	}
	select {
	case <-time.After(debounce):
	case <-ctx.Done():
		return nil, nil
	}
	// The document as it is after the wait: what the user did meanwhile
	// (an accepted suggestion, say) is in the prompt.
	doc, edits, open := n.s.docs.recent(u)
	if !open || doc.version != version {
		return nil, nil // typed on during the wait
	}
	client, err := n.model(ctx, settings)
	if err != nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: "+err.Error())
	}
	enc := n.s.clientCaps().encoding
	cursor := enc.offset(doc.text, pos)
	prompt := newNESPrompt(n.s.shownPath(doc.path), doc.text, edits, cursor, settings.NES.Zeta())
	resp, err := client.Chat(ctx, prompt.request())
	if err != nil {
		if ctx.Err() == nil {
			n.s.log.Debug("next edit", "error", err)
		}
		return nil, nil
	}
	edit := n.edit(doc, edits, prompt, resp.Text, pos)
	if n.s.docs.versionOf(u) != version {
		return nil, nil // stale: the document moved on while the model thought
	}
	n.mu.Lock()
	n.cache[u] = nesAnswer{version: version, pos: pos, edit: edit}
	n.mu.Unlock()
	if edit != nil {
		n.s.docs.suggested(u, version, edit.start, edit.end, edit.Text)
	}
	return edit, nil
}

// edit turns the model's answer into the edit to suggest, or nil: none when
// the answer has no region, changes nothing, or touches what the user is
// typing (the cursor's word, or the text of their last edit).
func (n *nextEditor) edit(doc document, edits []histEdit, prompt nesPrompt, answer string, pos protocol.Position) *inlineEdit {
	rewrite, ok := prompt.rewrite(answer)
	if !ok {
		n.s.log.Info("next edit: the answer has no rewritten region", "answer", summarize(answer, 200))
		return nil
	}
	region := doc.text[prompt.regionA:prompt.regionB]
	a, b, b2, changed := smallestEdit(region, rewrite)
	if !changed {
		return nil
	}
	start, end := prompt.regionA+a, prompt.regionA+b
	typingA, typingB := wordAround(doc.text, prompt.cursor)
	if len(edits) > 0 && !edits[len(edits)-1].accepted {
		last := edits[len(edits)-1]
		typingA, typingB = min(typingA, last.start), max(typingB, last.end())
	}
	if start <= typingB && end >= typingA {
		n.s.log.Debug("next edit: refused, it touches the text being typed")
		return nil
	}
	enc := n.s.clientCaps().encoding
	id := protocol.VersionedTextDocumentIdentifier{Version: doc.version}
	id.URI = doc.uri
	return &inlineEdit{
		start: start, end: end,
		Text: rewrite[a:b2], Range: enc.spanRange(doc.text, start, end), TextDocument: id,
		Command: &protocol.Command{Title: "Accept next edit", Command: CommandAcceptInlineEdit,
			Arguments: []protocol.LSPAny{acceptArg(doc)}},
	}
}

// model is the next-edit model's client, built on first use and again when
// its settings change.
func (n *nextEditor) model(ctx context.Context, settings config.Settings) (llm.Provider, error) {
	key := settings.NESTarget().String()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.client == nil || n.builtFor != key {
		client, err := n.s.opts.NewNES(ctx, settings)
		if err != nil {
			return nil, fmt.Errorf("next edit model: %w", err)
		}
		n.client, n.builtFor = client, key
	}
	n.calls++
	return n.client, nil
}

// cached is the suggestion known for the document at version, without
// asking anyone; nil when there is none.
func (n *nextEditor) cached(u uri.URI, version int32) *inlineEdit {
	n.mu.Lock()
	defer n.mu.Unlock()
	if a, ok := n.cache[u]; ok && a.version == version {
		return a.edit
	}
	return nil
}

// nesStatus is next edit suggestions in agent.status.
type nesStatus struct {
	Model    string `json:"model,omitempty"` // "": off
	Calls    int    `json:"calls"`
	Accepted int    `json:"accepted"`
}

func (n *nextEditor) status(settings config.Settings) nesStatus {
	n.mu.Lock()
	defer n.mu.Unlock()
	st := nesStatus{Calls: n.calls, Accepted: n.accepted}
	if settings.NES.Enabled() {
		st.Model = settings.NESTarget().String()
	}
	return st
}

func (s *Server) inlineEdit(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params inlineEditParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	s.nextEdits.asked.Store(true)
	edit, err := s.nextEdits.suggest(ctx, params.TextDocument.URI, params.TextDocument.Version, params.Position)
	if err != nil {
		return nil, err
	}
	res := inlineEditResult{Edits: []inlineEdit{}}
	if edit != nil {
		res.Edits = append(res.Edits, *edit)
	}
	return res, nil
}

// nextEditItem is the next edit in document u, cursor at pos, as an inline
// completion item, for a client that shows no copilotInlineEdit: nil when
// there is none, or none it can show. LSP 3.18 wants an item's range on
// one line; an edit on the cursor's line is widened to take in the cursor,
// as every client draws that, and one on another line is offered only to a
// client that draws a range anywhere.
func (s *Server) nextEditItem(ctx context.Context, u uri.URI, pos protocol.Position) *protocol.InlineCompletionItem {
	if s.nextEdits.showsThemItself() {
		return nil
	}
	doc, open := s.docs.get(u)
	if !open {
		return nil
	}
	edit, err := s.nextEdits.suggest(ctx, u, doc.version, pos)
	if err != nil || edit == nil || edit.Range.Start.Line != edit.Range.End.Line {
		return nil
	}
	caps := s.clientCaps()
	start, end, text := edit.start, edit.end, edit.Text
	if edit.Range.Start.Line == pos.Line {
		cursor := caps.encoding.offset(doc.text, pos)
		start, end = min(start, cursor), max(end, cursor)
		text = doc.text[start:edit.start] + text + doc.text[edit.end:end]
	} else if !caps.inlineRangeAnywhere {
		return nil
	}
	rng := caps.encoding.spanRange(doc.text, start, end)
	// Shown where the text it replaces starts its filter text: always.
	filter := doc.text[start:end]
	return &protocol.InlineCompletionItem{InsertText: protocol.String(text), Range: &rng, FilterText: &filter, Command: *edit.Command}
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

// acceptInlineEdit is told by the client that the user accepted a
// suggested edit (after applying it): the document's last edit is marked
// as an accepted suggestion, so the next suggestion builds on it.
func (s *Server) acceptInlineEdit(_ context.Context, a acceptEditArgs) (acceptEditResult, error) {
	ok, newly := s.docs.accepted(a.URI, a.Version)
	s.nextEdits.tookOne(a.URI, newly)
	return acceptEditResult{Recorded: ok}, nil
}

// tookOne notes that a suggestion in document u was accepted (counted
// when counts): known from the command or from the change that applied it,
// as a client that runs no command (copilot-lsp.nvim) shows only that.
func (n *nextEditor) tookOne(u uri.URI, counts bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if counts {
		n.accepted++
	}
	delete(n.cache, u)
}

// nextEditActions offers the suggestion known for the document, where the
// range touches its lines, as an action that applies it: never asking the
// model.
func (s *Server) nextEditActions(l *actionList, doc document, rng protocol.Range, caps clientCaps) {
	edit := s.nextEdits.cached(doc.uri, doc.version)
	if edit == nil || rng.End.Line < edit.Range.Start.Line || rng.Start.Line > edit.Range.End.Line {
		return
	}
	kind := protocol.CodeActionKindQuickFix
	if !l.wanted(kind) {
		return
	}
	// Whole lines, as a proposal's edits: ALE reads a column as a byte
	// offset, so an edit within a line after non-ASCII text lands wrong.
	lineA := strings.LastIndexByte(doc.text[:edit.start], '\n') + 1
	lineB := len(doc.text)
	if nl := strings.IndexByte(doc.text[edit.end:], '\n'); nl >= 0 {
		lineB = edit.end + nl + 1
	}
	te := protocol.TextEdit{Range: caps.encoding.spanRange(doc.text, lineA, lineB),
		NewText: doc.text[lineA:edit.start] + edit.Text + doc.text[edit.end:lineB]}
	we := protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{doc.uri: {te}}}
	if caps.documentChanges {
		version := doc.version
		we = protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{textDocumentEdit(doc.uri, &version, []protocol.TextEdit{te}, "")}}
	}
	title := "Apply suggested edit"
	if t := strings.TrimSpace(edit.Text); t != "" {
		title += ": " + summarize(t, 60)
	}
	// No command: the server knows the suggestion taken from the change
	// that applies it, and ALE runs an action's command instead of its edit.
	l.actions = append(l.actions, &protocol.CodeAction{Title: title, Kind: &kind, Edit: &we})
}

// validPosition says whether pos is in text: its line exists (the one after
// a final line break included); a character past the line's end is
// clamped, as clients send for "end of line".
func validPosition(text string, pos protocol.Position) bool {
	return int(pos.Line) <= strings.Count(text, "\n")
}

// wordAround is the identifier the offset is in or at an end of.
func wordAround(text string, offset int) (int, int) {
	a, b := offset, offset
	for a > 0 && isIdentByte(text[a-1]) {
		a--
	}
	for b < len(text) && isIdentByte(text[b]) {
		b++
	}
	return a, b
}

func acceptArg(doc document) protocol.LSPAny {
	raw, _ := json.Marshal(acceptEditArgs{URI: doc.uri, Version: doc.version})
	return raw
}
