// Package documents is the store of the editor's open buffers: their text,
// edited in place as didChange says, the path each was opened at, and each
// one's recent edits (its edit history, for next edit suggestions). It is
// the overlay the agent's workspace view reads before disk, and what
// completion and next edits read of a document; what they cache of one is
// keyed by its Edition, so it dies with that opening of the document.
// Positions convert between LSP's encodings and byte offsets here
// (position.go), and nowhere else. Safe for concurrent use.
package documents

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/server/fileuri"
)

// document is an open editor buffer. Its text lives in buf and is edited in
// place, so typing in a large file does not copy the whole file per
// keystroke; text is buf as a string, made when someone reads it.
type document struct {
	uri      uri.URI
	path     string // absolute, symlinks resolved
	language string // the client's language id ("go", "python", …)
	version  int32
	opened   uint64 // which didOpen of the path this is (edition)
	buf      []byte
	text     string
	fresh    bool        // text matches buf
	history  editHistory // recent edits, for next edit suggestions
	reorder  reordering  // where the client may send changes out of order (reorder.go)
}

// Edition names one text of a document: which opening of it and which
// version. Clients restart versions when they reopen a file, so a version
// alone does not say which text it was.
type Edition struct {
	Opened  uint64
	Version int32
}

// Document is an open document as its readers see it.
type Document struct {
	URI      uri.URI
	Path     string // absolute, symlinks resolved at didOpen
	Language string // the client's language id ("go", "python", …)
	Version  int32
	Opened   uint64 // which didOpen of the path this is
	Text     string
}

// Edition is the document's edition.
func (d Document) Edition() Edition { return Edition{Opened: d.Opened, Version: d.Version} }

func (d *document) edition() Edition { return Edition{Opened: d.opened, Version: d.version} }

// view is the document with text as a view of its buffer, for Read.
func (d *document) view() Document {
	return Document{URI: d.uri, Path: d.path, Language: d.language, Version: d.version, Opened: d.opened,
		Text: unsafe.String(unsafe.SliceData(d.buf), len(d.buf))}
}

// snapshot returns the document with its text as a string of its own. The
// caller holds the lock.
func (d *document) snapshot() Document {
	if !d.fresh {
		d.text, d.fresh = string(d.buf), true
	}
	doc := d.view()
	doc.Text = d.text
	return doc
}

// splice replaces buf[start:end] with text, in place when capacity allows.
func (d *document) splice(start, end int, text string) {
	oldLen := len(d.buf)
	newLen := oldLen - (end - start) + len(text)
	if newLen > cap(d.buf) {
		nb := make([]byte, newLen, newLen+newLen/4)
		copy(nb, d.buf[:start])
		copy(nb[start:], text)
		copy(nb[start+len(text):], d.buf[end:])
		d.buf = nb
	} else {
		if newLen > oldLen {
			d.buf = d.buf[:newLen]
		}
		copy(d.buf[start+len(text):], d.buf[end:oldLen]) // copy is a memmove
		copy(d.buf[start:], text)
		d.buf = d.buf[:newLen]
	}
	d.fresh = false
}

// Store holds the open buffers: the overlays the agent's workspace view
// reads before disk. It implements tools.Overlay. Safe for concurrent use.
type Store struct {
	mu     sync.Mutex // guards byPath, the documents in it, paths and opens
	byPath map[string]*document
	// paths is the path each open URI was resolved to at its didOpen:
	// links are resolved once per document, not on every keystroke, and a
	// link moved while it is open leaves it where it was.
	paths map[uri.URI]string
	opens uint64 // didOpens so far, and rewinds (reorder.go): each document's opened
	// mayReorder: the client may send a document's changes out of order
	// (ClientMayReorder); reorderSeen: it did, on this connection.
	mayReorder, reorderSeen bool

	watchMu  sync.Mutex // guards watchers and watchID
	watchers map[int]func(string)
	watchID  int
}

// WatchBuffers implements tools.BufferWatcher: changed is called with a
// document's path after each didChange applied to it.
func (d *Store) WatchBuffers(changed func(abs string)) (stop func()) {
	d.watchMu.Lock()
	defer d.watchMu.Unlock()
	if d.watchers == nil {
		d.watchers = map[int]func(string){}
	}
	d.watchID++
	id := d.watchID
	d.watchers[id] = changed
	return func() {
		d.watchMu.Lock()
		delete(d.watchers, id)
		d.watchMu.Unlock()
	}
}

// changed tells the watchers that the document at p changed.
func (d *Store) changed(p string) {
	d.watchMu.Lock()
	defer d.watchMu.Unlock()
	for _, w := range d.watchers {
		w(p)
	}
}

// New is an empty store.
func New() *Store {
	return &Store{byPath: map[string]*document{}, paths: map[uri.URI]string{}}
}

// Path is the path of the document at u: the one it was opened at, else
// the one u names now (PathOf).
func (d *Store) Path(u uri.URI) (string, error) {
	d.mu.Lock()
	p, open := d.paths[u]
	d.mu.Unlock()
	if open {
		return p, nil
	}
	return PathOf(u)
}

// PathOf maps a file URI to the path the workspace view uses: the path it
// names on this system (fileuri), links resolved where it exists.
func PathOf(u uri.URI) (string, error) {
	p, err := fileuri.Path(u)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real, nil
	}
	return p, nil
}

// Buffer implements tools.Overlay.
func (d *Store) Buffer(absPath string) (string, int32, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byPath[absPath]
	if !ok {
		return "", 0, false
	}
	snap := doc.snapshot()
	return snap.Text, snap.Version, true
}

// OpenBuffers implements tools.BufferLister: commands see these buffers'
// unsaved text.
func (d *Store) OpenBuffers() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	paths := make([]string, 0, len(d.byPath))
	for p := range d.byPath {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

func (d *Store) Open(item protocol.TextDocumentItem) error {
	p, err := PathOf(item.URI)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.opens++
	d.paths[item.URI] = p
	d.byPath[p] = &document{uri: item.URI, path: p, language: string(item.LanguageID), buf: []byte(item.Text), text: item.Text, fresh: true,
		version: item.Version, opened: d.opens}
	return nil
}

func (d *Store) Close(u uri.URI) error {
	p, err := d.Path(u)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if doc, ok := d.byPath[p]; ok {
		doc.reorder.stop()
	}
	delete(d.byPath, p)
	for open, path := range d.paths {
		if path == p || open == u {
			delete(d.paths, open)
		}
	}
	return nil
}

// Change applies content changes in order, each against the text the previous
// one produced, as the protocol requires. It says whether one of them was
// the next edit last suggested. A notification is applied whole or not at
// all: a change with an invalid range leaves the text, the version and the
// history as they were before the first.
func (d *Store) Change(params *protocol.DidChangeTextDocumentParams, enc Encoding) (acceptedSuggestion bool, err error) {
	p, err := d.Path(params.TextDocument.URI)
	if err != nil {
		return false, err
	}
	acceptedSuggestion, applied, err := d.change(p, params, enc)
	if applied {
		d.changed(p)
	}
	return acceptedSuggestion, err
}

func (d *Store) change(p string, params *protocol.DidChangeTextDocumentParams, enc Encoding) (acceptedSuggestion, applied bool, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byPath[p]
	if !ok {
		return false, false, fmt.Errorf("didChange for %s, which is not open", params.TextDocument.URI)
	}
	if d.mayReorder {
		return d.changeReordered(p, doc, change{params, enc})
	}
	acceptedSuggestion, err = doc.apply(params, enc)
	return acceptedSuggestion, err == nil, err
}

// apply applies one notification's changes; the lock is held.
func (doc *document) apply(params *protocol.DidChangeTextDocumentParams, enc Encoding) (acceptedSuggestion bool, err error) {
	changes := params.ContentChanges
	var undo changeUndo
	if len(changes) > 1 {
		// Only a change after another can fail once some are applied: a
		// single one is checked before anything changes, and costs no copy.
		undo = doc.beginUndo()
	}
	for i, c := range changes {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangePartial:
			// Positions are resolved on a read-only view of the buffer,
			// dropped before the buffer changes.
			view := unsafe.String(unsafe.SliceData(doc.buf), len(doc.buf))
			start, end := enc.Offset(view, c.Range.Start), enc.Offset(view, c.Range.End)
			if end < start {
				undo.rollback(doc)
				return false, fmt.Errorf("didChange for %s: change %d: range end before start; none of its changes applied", params.TextDocument.URI, i+1)
			}
			if i < len(changes)-1 {
				undo.steps = append(undo.steps, undoStep{start: start, old: string(doc.buf[start:end]), newLen: len(c.Text)})
			}
			acceptedSuggestion = doc.history.record(doc.buf, start, end, c.Text) || acceptedSuggestion
			doc.splice(start, end, c.Text)
		case *protocol.TextDocumentContentChangeWholeDocument:
			if i < len(changes)-1 {
				undo.steps = append(undo.steps, undoStep{whole: true, buf: doc.buf})
			}
			acceptedSuggestion = doc.history.replaced(doc.buf, c.Text) || acceptedSuggestion
			doc.buf, doc.text, doc.fresh = []byte(c.Text), c.Text, true
		}
	}
	doc.version = params.TextDocument.Version
	return acceptedSuggestion, nil
}

// changeUndo takes back the changes of a notification applied so far.
type changeUndo struct {
	begun   bool
	history editHistory
	text    string
	fresh   bool
	steps   []undoStep
}

// undoStep takes back one change: a whole replacement by the buffer
// before it (left as it was: the replacement made a new one), a partial
// one by its old bytes.
type undoStep struct {
	whole  bool
	buf    []byte // whole's
	start  int
	old    string
	newLen int
}

// beginUndo saves what changes of doc can change, beside its buffer: the
// history is a few edits, copied.
func (doc *document) beginUndo() changeUndo {
	return changeUndo{begun: true, history: doc.history.clone(), text: doc.text, fresh: doc.fresh}
}

func (u changeUndo) rollback(doc *document) {
	if !u.begun {
		return // nothing was applied
	}
	for i := len(u.steps) - 1; i >= 0; i-- {
		switch st := u.steps[i]; {
		case st.whole:
			doc.buf = st.buf
		default:
			doc.splice(st.start, st.start+st.newLen, st.old)
		}
	}
	doc.history, doc.text, doc.fresh = u.history, u.text, u.fresh
}

// Get returns a copy of the open document at u.
func (d *Store) Get(u uri.URI) (Document, bool) {
	p, err := d.Path(u)
	if err != nil {
		return Document{}, false
	}
	return d.GetPath(p)
}

// EditionOf is the edition of the open document at u; false when it is
// not open.
func (d *Store) EditionOf(u uri.URI) (Edition, bool) {
	var ed Edition
	open := d.read(u, func(doc *document) { ed = doc.edition() })
	return ed, open
}

// Read calls f with the open document at u and its recent edits, under the
// lock, and says whether it is open. The document's text is a view of the
// buffer and the history a view of the edits, valid only until f returns:
// what f keeps of them, it copies (strings.Clone; a concatenation is no
// copy when all but one of its parts are empty), so a large document is
// read without being copied.
func (d *Store) Read(u uri.URI, f func(doc Document, history History)) bool {
	return d.read(u, func(doc *document) { f(doc.view(), History{edits: doc.history.edits}) })
}

// read calls f with the open document at u, under the lock.
func (d *Store) read(u uri.URI, f func(doc *document)) bool {
	p, err := d.Path(u)
	if err != nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byPath[p]
	if !ok {
		return false
	}
	f(doc)
	return true
}

// Head is the start of an open document.
type Head struct {
	Path, Text string
}

// Heads is the first n bytes at most of the other open documents of
// language, by path, copied: never the whole of a large one.
func (d *Store) Heads(path, language string, n int) []Head {
	if language == "" {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []Head
	for p, other := range d.byPath {
		if p != path && other.language == language {
			view := unsafe.String(unsafe.SliceData(other.buf), len(other.buf))
			out = append(out, Head{Path: p, Text: strings.Clone(FirstBytes(view, n))})
		}
	}
	slices.SortFunc(out, func(a, b Head) int { return strings.Compare(a.Path, b.Path) })
	return out
}

func (d *Store) GetPath(p string) (Document, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byPath[p]
	if !ok {
		return Document{}, false
	}
	return doc.snapshot(), true
}

// URIOf is the URI the server sends for a file: the one the client opened
// it by when it is open (perhaps through a symlink, as macOS's /tmp is
// /private/tmp, while absPath has links resolved), else the one fileuri
// makes.
func (d *Store) URIOf(absPath string) uri.URI {
	d.mu.Lock()
	defer d.mu.Unlock()
	if doc, ok := d.byPath[absPath]; ok {
		return doc.uri
	}
	return fileuri.URI(absPath)
}

// ChangeEnd is where the latest change to the open document at u ended,
// at its version: the cursor, as far as the server can tell. It copies
// nothing: it runs after every keystroke.
func (d *Store) ChangeEnd(u uri.URI, enc Encoding) (language string, ed Edition, pos protocol.Position, ok bool) {
	d.read(u, func(doc *document) {
		if len(doc.history.edits) > 0 {
			language, ed, pos, ok = doc.language, doc.edition(), enc.Position(doc.view().Text, doc.history.changedAt), true
		}
	})
	return language, ed, pos, ok
}

// Suggested notes that text was suggested for the document at u at
// edition ed, in place of its bytes [start, end), and returns their range:
// the change that applies it is recorded as an accepted suggestion. False
// when the document has moved on.
func (d *Store) Suggested(u uri.URI, ed Edition, start, end int, text string, enc Encoding) (rng protocol.Range, ok bool) {
	d.read(u, func(doc *document) {
		view := doc.view().Text
		if doc.edition() == ed && start <= end && end <= len(view) {
			doc.history.suggest(doc.buf, start, end, text)
			rng, ok = enc.SpanRange(view, start, end), true
		}
	})
	return rng, ok
}

// Accepted notes that the user accepted a suggested edit in the document at
// u: its last edit (the suggestion, as the client applied it) is marked so.
// newly says it was not known as accepted already (from its change).
func (d *Store) Accepted(u uri.URI, version int32) (ok, newly bool) {
	p, err := d.Path(u)
	if err != nil {
		return false, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, open := d.byPath[p]
	switch {
	case !open || doc.version < version:
		return false, false
	case doc.version == version:
		// Told before the change that applies it (copilot.el sends the
		// command first): the last edit is the user's own; the change,
		// when it comes, is known as the suggestion.
		return true, false
	}
	return true, doc.history.accept()
}
