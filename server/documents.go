package server

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
}

// edition names one text of a document: which opening of it and which
// version. Clients restart versions when they reopen a file, so a version
// alone does not say which text it was.
type edition struct {
	opened  uint64
	version int32
}

func (d *document) edition() edition { return edition{opened: d.opened, version: d.version} }

// snapshot returns the document with text filled in. The caller holds the lock.
func (d *document) snapshot() document {
	if !d.fresh {
		d.text, d.fresh = string(d.buf), true
	}
	return document{uri: d.uri, path: d.path, language: d.language, version: d.version, opened: d.opened, text: d.text, fresh: true}
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

// documents holds the open buffers: the overlays the agent's workspace view
// reads before disk. It implements tools.Overlay. Safe for concurrent use.
type documents struct {
	mu     sync.Mutex // guards byPath, the documents in it, paths and opens
	byPath map[string]*document
	// paths is the path each open URI was resolved to at its didOpen:
	// links are resolved once per document, not on every keystroke, and a
	// link moved while it is open leaves it where it was.
	paths map[uri.URI]string
	opens uint64 // didOpens so far: each document's opened
}

func newDocuments() *documents {
	return &documents{byPath: map[string]*document{}, paths: map[uri.URI]string{}}
}

// path is the path of the document at u: the one it was opened at, else
// the one u names now (pathOf).
func (d *documents) path(u uri.URI) (string, error) {
	d.mu.Lock()
	p, open := d.paths[u]
	d.mu.Unlock()
	if open {
		return p, nil
	}
	return pathOf(u)
}

// pathOf maps a file URI to the path the workspace view uses: the path it
// names on this system (fileuri), links resolved where it exists.
func pathOf(u uri.URI) (string, error) {
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
func (d *documents) Buffer(absPath string) (string, int32, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byPath[absPath]
	if !ok {
		return "", 0, false
	}
	snap := doc.snapshot()
	return snap.text, snap.version, true
}

// OpenBuffers implements tools.BufferLister: commands see these buffers'
// unsaved text.
func (d *documents) OpenBuffers() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	paths := make([]string, 0, len(d.byPath))
	for p := range d.byPath {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

func (d *documents) open(item protocol.TextDocumentItem) error {
	p, err := pathOf(item.URI)
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

func (d *documents) close(u uri.URI) error {
	p, err := d.path(u)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.byPath, p)
	for open, path := range d.paths {
		if path == p || open == u {
			delete(d.paths, open)
		}
	}
	return nil
}

// change applies content changes in order, each against the text the previous
// one produced, as the protocol requires. It says whether one of them was
// the next edit last suggested. A notification is applied whole or not at
// all: a change with an invalid range leaves the text, the version and the
// history as they were before the first.
func (d *documents) change(params *protocol.DidChangeTextDocumentParams, enc encoding) (acceptedSuggestion bool, err error) {
	p, err := d.path(params.TextDocument.URI)
	if err != nil {
		return false, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byPath[p]
	if !ok {
		return false, fmt.Errorf("didChange for %s, which is not open", params.TextDocument.URI)
	}
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
			start, end := enc.offset(view, c.Range.Start), enc.offset(view, c.Range.End)
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
	h := doc.history
	h.edits = slices.Clone(h.edits)
	return changeUndo{begun: true, history: h, text: doc.text, fresh: doc.fresh}
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

// get returns a copy of the open document at u.
func (d *documents) get(u uri.URI) (document, bool) {
	p, err := d.path(u)
	if err != nil {
		return document{}, false
	}
	return d.getPath(p)
}

// editionOf is the edition of the open document at u; false when it is
// not open.
func (d *documents) editionOf(u uri.URI) (edition, bool) {
	var ed edition
	open := d.read(u, func(doc *document, _ string) { ed = doc.edition() })
	return ed, open
}

// read calls f with the open document at u and its text, under the lock,
// and says whether it is open. The text is a view of the buffer, valid only
// until f returns: what f keeps of it, it copies (strings.Clone), so a
// large document is read without being copied.
func (d *documents) read(u uri.URI, f func(doc *document, text string)) bool {
	p, err := d.path(u)
	if err != nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byPath[p]
	if !ok {
		return false
	}
	f(doc, unsafe.String(unsafe.SliceData(doc.buf), len(doc.buf)))
	return true
}

// docHead is the start of an open document.
type docHead struct {
	path, head string
}

// heads is the first n bytes at most of the other open documents of
// language, by path, copied: never the whole of a large one.
func (d *documents) heads(path, language string, n int) []docHead {
	if language == "" {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []docHead
	for p, other := range d.byPath {
		if p != path && other.language == language {
			view := unsafe.String(unsafe.SliceData(other.buf), len(other.buf))
			out = append(out, docHead{path: p, head: strings.Clone(firstBytes(view, n))})
		}
	}
	slices.SortFunc(out, func(a, b docHead) int { return strings.Compare(a.path, b.path) })
	return out
}

func (d *documents) getPath(p string) (document, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byPath[p]
	if !ok {
		return document{}, false
	}
	return doc.snapshot(), true
}

// uriOf is the URI the server sends for a file: the one the client opened
// it by when it is open (perhaps through a symlink, as macOS's /tmp is
// /private/tmp, while absPath has links resolved), else the one fileuri
// makes.
func (d *documents) uriOf(absPath string) uri.URI {
	d.mu.Lock()
	defer d.mu.Unlock()
	if doc, ok := d.byPath[absPath]; ok {
		return doc.uri
	}
	return fileuri.URI(absPath)
}

// changeEnd is where the latest change to the open document at u ended,
// at its version: the cursor, as far as the server can tell. It copies
// nothing: it runs after every keystroke.
func (d *documents) changeEnd(u uri.URI, enc encoding) (language string, ed edition, pos protocol.Position, ok bool) {
	d.read(u, func(doc *document, text string) {
		if len(doc.history.edits) > 0 {
			language, ed, pos, ok = doc.language, doc.edition(), enc.position(text, doc.history.changedAt), true
		}
	})
	return language, ed, pos, ok
}

// suggested notes that text was suggested for the document at u at
// edition ed, in place of its bytes [start, end), and returns their range:
// the change that applies it is recorded as an accepted suggestion. False
// when the document has moved on.
func (d *documents) suggested(u uri.URI, ed edition, start, end int, text string, enc encoding) (rng protocol.Range, ok bool) {
	d.read(u, func(doc *document, view string) {
		if doc.edition() == ed && start <= end && end <= len(view) {
			doc.history.suggest(doc.buf, start, end, text)
			rng, ok = enc.spanRange(view, start, end), true
		}
	})
	return rng, ok
}

// accepted notes that the user accepted a suggested edit in the document at
// u: its last edit (the suggestion, as the client applied it) is marked so.
// newly says it was not known as accepted already (from its change).
func (d *documents) accepted(u uri.URI, version int32) (ok, newly bool) {
	p, err := d.path(u)
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
