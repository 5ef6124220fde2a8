// Package nextedit suggests the edit a programmer will likely make next,
// from their recent edits in a document (its history in the document
// store): the model rewrites the region around the cursor (prompt.go) and
// the rewrite becomes the smallest edit. It knows the document store and a
// model (llm.Provider), never the LSP wire: the server's glue (server/nes.go)
// serves textDocument/copilotInlineEdit, inline completion items and code
// actions from it. What it caches of a document is keyed by the document's
// edition and dropped when the document closes (Forget); each document's
// latest request cancels the one before it; after repeated failures it
// pauses (assist.Pause), as completion does.
package nextedit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/server/assist"
	"github.com/agent-lsp/agent-lsp/server/documents"
)

// ErrPositionOutside is returned for a cursor outside the document.
var ErrPositionOutside = errors.New("position is outside the document")

// Edit is one suggested edit: Text in place of the bytes [Start, End) of
// the document at Edition, which held Old; Range is the same bytes in the
// client's position encoding.
type Edit struct {
	Start, End int
	Old, Text  string
	Range      protocol.Range
	Edition    documents.Edition
}

// Fits says whether e still applies to text: the bytes it replaces are
// there. An edit made for another text is checked so before use.
func (e *Edit) Fits(text string) bool {
	return e.Start <= e.End && e.End <= len(text) && text[e.Start:e.End] == e.Old
}

// Env is what a suggestion is made with besides the document: the
// settings in force, the client's position encoding, and how a file is
// named to the model.
type Env struct {
	Settings  config.Settings
	Encoding  documents.Encoding
	ShownPath func(path string) string
}

// Engine suggests next edits for one connection's documents.
type Engine struct {
	docs     *documents.Store
	newModel func(ctx context.Context, s config.Settings) (llm.Provider, error)
	log      *slog.Logger
	// background is the engine's: suggestions made without a request end
	// with it (Stop).
	background context.Context
	Stop       context.CancelFunc
	latest     assist.Latest // the request going per document
	slot       assist.Slot[llm.Provider]
	pause      assist.Pause

	mu       sync.Mutex // guards cache and accepted
	cache    map[uri.URI]answer
	accepted int // suggestions the user accepted
}

// answer is the answer for a document at an edition and position; edit is
// nil for none.
type answer struct {
	ed   documents.Edition
	pos  protocol.Position
	edit *Edit
}

// New is an engine over docs that builds its model with newModel; nil
// newModel leaves it off.
func New(docs *documents.Store, newModel func(ctx context.Context, s config.Settings) (llm.Provider, error), log *slog.Logger) *Engine {
	ctx, stop := context.WithCancel(context.Background())
	return &Engine{docs: docs, newModel: newModel, log: log, background: ctx, Stop: stop, cache: map[uri.URI]answer{}}
}

// On says whether next edits are on for a document of language.
func (e *Engine) On(settings config.Settings, language string) bool {
	return e.newModel != nil && settings.NES.On(language)
}

// AfterChange suggests the next edit after a change to document u, at the
// change's end, in the background, for a client that will never ask: the
// suggestion is then Cached. Each change cancels the suggestion before it,
// so a burst of keystrokes makes one model call; nothing of the document's
// size is built before the debounce.
func (e *Engine) AfterChange(u uri.URI, env Env) {
	if e.newModel == nil || !env.Settings.NES.Enabled() {
		return // off: not even where the change ended is worked out
	}
	language, ed, pos, changed := e.docs.ChangeEnd(u, env.Encoding)
	if !changed || !e.On(env.Settings, language) {
		return
	}
	// The latest now, before the caller returns: a request the client
	// sends after this change must supersede it, never the other way.
	ctx, done := e.latest.Begin(e.background, u)
	go func() {
		defer done()
		e.find(ctx, u, ed, pos, env) //nolint:errcheck // no one to tell: Cached shows what it found
	}()
}

// Suggest finds the next edit in document u at version, cursor at pos, or
// none. A request for a version the document has left, or superseded by a
// newer request, ends with none.
func (e *Engine) Suggest(ctx context.Context, u uri.URI, version int32, pos protocol.Position, env Env) (*Edit, error) {
	var ed documents.Edition
	var language string
	var valid bool
	if !e.docs.Read(u, func(doc documents.Document, _ documents.History) {
		ed, language, valid = doc.Edition(), doc.Language, validPosition(doc.Text, pos)
	}) {
		return nil, nil
	}
	if !valid {
		return nil, fmt.Errorf("%w: %d:%d", ErrPositionOutside, pos.Line, pos.Character)
	}
	if !e.On(env.Settings, language) || version != ed.Version {
		return nil, nil
	}
	ctx, done := e.latest.Begin(ctx, u)
	defer done()
	return e.find(ctx, u, ed, pos, env)
}

// find is Suggest's work once the request is the latest: the cache, the
// debounce, the model. The prompt is built from the buffer in place.
func (e *Engine) find(ctx context.Context, u uri.URI, ed documents.Edition, pos protocol.Position, env Env) (*Edit, error) {
	e.mu.Lock()
	cached, hit := e.cache[u]
	e.mu.Unlock()
	if hit && cached.ed == ed && cached.pos == pos {
		return cached.edit, nil
	}
	select {
	case <-time.After(env.Settings.NES.Debounce()):
	case <-ctx.Done():
		return nil, nil
	}
	// The document as it is after the wait: what the user did meanwhile
	// (an accepted suggestion, say) is in the prompt.
	var prompt nesPrompt
	var path string
	current := false
	e.docs.Read(u, func(doc documents.Document, history documents.History) {
		if current = doc.Edition() == ed; current {
			path = doc.Path
			prompt = newNESPrompt(doc.Text, history, env.Encoding.Offset(doc.Text, pos), env.Settings.NES.Zeta())
		}
	})
	if !current {
		return nil, nil // typed on during the wait, or closed
	}
	prompt.path = env.ShownPath(path)
	if e.pause.Paused() {
		return nil, nil // a dead model is not asked on every pause in typing
	}
	client, err := e.slot.Get(env.Settings.NESTarget().String(), func() (llm.Provider, error) {
		return e.newModel(ctx, env.Settings)
	})
	if err != nil {
		return nil, fmt.Errorf("next edit model: %w", err)
	}
	resp, err := client.Chat(ctx, prompt.request())
	e.pause.Settle(ctx, err)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Debug("next edit", "error", err)
		}
		return nil, nil
	}
	edit := e.edit(u, ed, prompt, resp.Text, env.Encoding)
	if now, _ := e.docs.EditionOf(u); now != ed {
		return nil, nil // stale: the document moved on while the model thought
	}
	e.remember(u, answer{ed: ed, pos: pos, edit: edit})
	return edit, nil
}

// remember caches the answer for its document while that is open at the
// answer's edition: one closed meanwhile keeps nothing.
func (e *Engine) remember(u uri.URI, a answer) {
	e.mu.Lock()
	e.cache[u] = a
	e.mu.Unlock()
	if now, _ := e.docs.EditionOf(u); now != a.ed {
		e.mu.Lock()
		if e.cache[u].ed == a.ed {
			delete(e.cache, u)
		}
		e.mu.Unlock()
	}
}

// edit turns the model's answer into the edit to suggest in document u at
// ed, or nil: none when the answer has no region, changes nothing, touches
// what the user is typing (the cursor's word, or the text of their last
// edit), or the document moved on.
func (e *Engine) edit(u uri.URI, ed documents.Edition, prompt nesPrompt, answer string, enc documents.Encoding) *Edit {
	rewrite, ok := prompt.rewrite(answer)
	if !ok {
		e.log.Info("next edit: the answer has no rewritten region", "answer", documents.FirstBytes(answer, 200))
		return nil
	}
	a, b, b2, changed := smallestEdit(prompt.region, rewrite)
	if !changed {
		return nil
	}
	start, end := prompt.regionA+a, prompt.regionA+b
	if start <= prompt.typingB && end >= prompt.typingA {
		e.log.Debug("next edit: refused, it touches the text being typed")
		return nil
	}
	text := rewrite[a:b2]
	rng, ok := e.docs.Suggested(u, ed, start, end, text, enc)
	if !ok {
		return nil
	}
	return &Edit{Start: start, End: end, Old: prompt.region[a:b], Text: text, Range: rng, Edition: ed}
}

// Cached is the suggestion known for doc, without asking anyone; nil when
// there is none, or it no longer fits the text.
func (e *Engine) Cached(doc documents.Document) *Edit {
	e.mu.Lock()
	a, ok := e.cache[doc.URI]
	e.mu.Unlock()
	if !ok || a.ed != doc.Edition() || a.edit == nil || !a.edit.Fits(doc.Text) {
		return nil
	}
	return a.edit
}

// Forget drops what is known of document u and stops its suggestion: it
// was closed.
func (e *Engine) Forget(u uri.URI) {
	e.latest.End(u)
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.cache, u)
}

// TookOne notes that a suggestion in document u was accepted (counted when
// counts): known from the client's command, or from the change that applied
// it, as a client that runs no command (copilot-lsp.nvim) shows only that.
func (e *Engine) TookOne(u uri.URI, counts bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if counts {
		e.accepted++
	}
	delete(e.cache, u)
}

// Status is next edit suggestions in agent.status.
type Status struct {
	Model    string    `json:"model,omitempty"` // "": off
	Calls    int       `json:"calls"`
	Accepted int       `json:"accepted"`
	Paused   time.Time `json:"pausedUntil,omitzero"`
}

// Status is the engine's state under settings.
func (e *Engine) Status(settings config.Settings) Status {
	e.mu.Lock()
	st := Status{Accepted: e.accepted}
	e.mu.Unlock()
	st.Calls, st.Paused = e.slot.Calls(), e.pause.Until()
	if settings.NES.Enabled() {
		st.Model = settings.NESTarget().String()
	}
	return st
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
