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

	// The range in bytes, in the document at ed, where it replaces old:
	// checked against the text before an edit made long ago is used.
	start, end int
	old        string
	ed         edition
}

// fits says whether e still applies to text: the bytes it replaces are there.
func (e *inlineEdit) fits(text string) bool {
	return e.start <= e.end && e.end <= len(text) && text[e.start:e.end] == e.old
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
	cache    map[uri.URI]nesAnswer // the latest answer per open document
	calls    int                   // model calls made
	accepted int                   // suggestions the user accepted

	pause modelPause // after repeated failures
}

// nesAnswer is the answer for a document at an edition and position; edit
// is nil for none.
type nesAnswer struct {
	ed   edition
	pos  protocol.Position
	edit *inlineEdit
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
	language, ed, pos, changed := n.s.docs.changeEnd(u, caps.encoding)
	if !changed || !settings.NES.On(language) {
		return
	}
	// The latest now, before the handler returns: a request the client
	// sends after this change must supersede it, never the other way.
	ctx, done := n.latest.begin(n.background, u)
	go func() {
		defer done()
		n.find(ctx, u, ed, pos, settings) //nolint:errcheck // no one to tell: the code action shows what it found
	}()
}

// suggest finds the next edit in document u at version, cursor at pos, or
// none. A request for a version the document has left, or superseded by a
// newer request, ends with none.
func (n *nextEditor) suggest(ctx context.Context, u uri.URI, version int32, pos protocol.Position) (*inlineEdit, error) {
	settings := n.s.workspace.settings()
	var ed edition
	var language string
	var valid bool
	if !n.s.docs.read(u, func(doc *document, text string) {
		ed, language, valid = doc.edition(), doc.language, validPosition(text, pos)
	}) {
		return nil, nil
	}
	if !valid {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("position %d:%d is outside the document", pos.Line, pos.Character))
	}
	if !settings.NES.On(language) || n.s.opts.NewNES == nil || version != ed.version {
		return nil, nil
	}
	ctx, done := n.latest.begin(ctx, u)
	defer done()
	return n.find(ctx, u, ed, pos, settings)
}

// find is suggest's work once the request is the latest: the cache, the
// debounce, the model. Nothing of the document's size is built before the
// debounce, nor after it: the prompt is built from the buffer in place.
func (n *nextEditor) find(ctx context.Context, u uri.URI, ed edition, pos protocol.Position, settings config.Settings) (*inlineEdit, error) {
	n.mu.Lock()
	cached, hit := n.cache[u]
	n.mu.Unlock()
	if hit && cached.ed == ed && cached.pos == pos {
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
	enc := n.s.clientCaps().encoding
	var prompt nesPrompt
	var path string
	current := false
	n.s.docs.read(u, func(doc *document, text string) {
		if current = doc.edition() == ed; current {
			path = doc.path
			prompt = newNESPrompt(text, doc.history.edits, enc.offset(text, pos), settings.NES.Zeta())
		}
	})
	if !current {
		return nil, nil // typed on during the wait, or closed
	}
	prompt.path = n.s.shownPath(path)
	if n.pause.paused() {
		return nil, nil // a dead model is not asked on every pause in typing
	}
	client, err := n.model(ctx, settings)
	if err != nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: "+err.Error())
	}
	resp, err := client.Chat(ctx, prompt.request())
	n.pause.settle(ctx, err)
	if err != nil {
		if ctx.Err() == nil {
			n.s.log.Debug("next edit", "error", err)
		}
		return nil, nil
	}
	edit := n.edit(u, ed, prompt, resp.Text)
	if now, _ := n.s.docs.editionOf(u); now != ed {
		return nil, nil // stale: the document moved on while the model thought
	}
	n.remember(u, nesAnswer{ed: ed, pos: pos, edit: edit})
	return edit, nil
}

// remember caches the answer for its document while that is open at the
// answer's edition: one closed meanwhile keeps nothing.
func (n *nextEditor) remember(u uri.URI, a nesAnswer) {
	n.mu.Lock()
	n.cache[u] = a
	n.mu.Unlock()
	if now, _ := n.s.docs.editionOf(u); now != a.ed {
		n.mu.Lock()
		if n.cache[u].ed == a.ed {
			delete(n.cache, u)
		}
		n.mu.Unlock()
	}
}

// forget drops what is known of document u and stops its suggestion: it
// was closed.
func (n *nextEditor) forget(u uri.URI) {
	n.latest.end(u)
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.cache, u)
}

// edit turns the model's answer into the edit to suggest in document u at
// ed, or nil: none when the answer has no region, changes nothing, touches
// what the user is typing (the cursor's word, or the text of their last
// edit), or the document moved on.
func (n *nextEditor) edit(u uri.URI, ed edition, prompt nesPrompt, answer string) *inlineEdit {
	rewrite, ok := prompt.rewrite(answer)
	if !ok {
		n.s.log.Info("next edit: the answer has no rewritten region", "answer", summarize(answer, 200))
		return nil
	}
	a, b, b2, changed := smallestEdit(prompt.region, rewrite)
	if !changed {
		return nil
	}
	start, end := prompt.regionA+a, prompt.regionA+b
	if start <= prompt.typingB && end >= prompt.typingA {
		n.s.log.Debug("next edit: refused, it touches the text being typed")
		return nil
	}
	text := rewrite[a:b2]
	rng, ok := n.s.docs.suggested(u, ed, start, end, text, n.s.clientCaps().encoding)
	if !ok {
		return nil
	}
	id := protocol.VersionedTextDocumentIdentifier{Version: ed.version}
	id.URI = u
	return &inlineEdit{
		start: start, end: end, old: prompt.region[a:b], ed: ed,
		Text: text, Range: rng, TextDocument: id,
		Command: &protocol.Command{Title: "Accept next edit", Command: CommandAcceptInlineEdit,
			Arguments: []protocol.LSPAny{acceptArg(u, ed.version)}},
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

// cached is the suggestion known for doc, without asking anyone; nil when
// there is none, or it no longer fits the text.
func (n *nextEditor) cached(doc document) *inlineEdit {
	n.mu.Lock()
	a, ok := n.cache[doc.uri]
	n.mu.Unlock()
	if !ok || a.ed != doc.edition() || a.edit == nil || !a.edit.fits(doc.text) {
		return nil
	}
	return a.edit
}

// nesStatus is next edit suggestions in agent.status.
type nesStatus struct {
	Model    string    `json:"model,omitempty"` // "": off
	Calls    int       `json:"calls"`
	Accepted int       `json:"accepted"`
	Paused   time.Time `json:"pausedUntil,omitzero"`
}

func (n *nextEditor) status(settings config.Settings) nesStatus {
	n.mu.Lock()
	defer n.mu.Unlock()
	st := nesStatus{Calls: n.calls, Accepted: n.accepted, Paused: n.pause.pausedUntil()}
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
	ed, open := s.docs.editionOf(u)
	if !open {
		return nil
	}
	edit, err := s.nextEdits.suggest(ctx, u, ed.version, pos)
	if err != nil || edit == nil || edit.Range.Start.Line != edit.Range.End.Line {
		return nil
	}
	caps := s.clientCaps()
	if edit.Range.Start.Line != pos.Line && !caps.inlineRangeAnywhere {
		return nil
	}
	var item *protocol.InlineCompletionItem
	s.docs.read(u, func(doc *document, text string) {
		if doc.edition() != edit.ed || !edit.fits(text) {
			return
		}
		start, end, insert := edit.start, edit.end, edit.Text
		if edit.Range.Start.Line == pos.Line {
			// The cursor and the edit are in the region: what lies between
			// is bounded.
			cursor := caps.encoding.offset(text, pos)
			start, end = min(start, cursor), max(end, cursor)
			insert = text[start:edit.start] + insert + text[edit.end:end]
		}
		rng := caps.encoding.spanRange(text, start, end)
		// Shown where the text it replaces starts its filter text: always.
		filter := strings.Clone(text[start:end])
		item = &protocol.InlineCompletionItem{InsertText: protocol.String(insert), Range: &rng, FilterText: &filter, Command: *edit.Command}
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
func (s *Server) nextEditActions(l *actionList, at actionContext) {
	if !at.open {
		return
	}
	doc, rng, caps := at.doc, at.rng, at.caps
	edit := s.nextEdits.cached(doc)
	if edit == nil || rng.End.Line < edit.Range.Start.Line || rng.Start.Line > edit.Range.End.Line {
		return
	}
	kind := protocol.CodeActionKindQuickFix
	if !l.wanted(kind) {
		return
	}
	lineA, lineB := actionSpan(doc.text, edit.start, edit.end)
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

func acceptArg(u uri.URI, version int32) protocol.LSPAny {
	raw, _ := json.Marshal(acceptEditArgs{URI: u, Version: version})
	return raw
}
