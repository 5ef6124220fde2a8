package server

import (
	"fmt"
	"path/filepath"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// document is an open editor buffer.
type document struct {
	uri     uri.URI
	path    string // absolute, symlinks resolved
	text    string
	version int32
}

// documents holds the open buffers: the overlays the agent's workspace view
// reads before disk. It implements tools.Overlay. Safe for concurrent use.
type documents struct {
	mu     sync.RWMutex // guards byPath
	byPath map[string]*document
}

func newDocuments() *documents { return &documents{byPath: map[string]*document{}} }

// pathOf maps a file URI to the path the workspace view uses.
func pathOf(u uri.URI) (string, error) {
	if u == "" {
		return "", fmt.Errorf("empty document URI")
	}
	if u.Scheme() != "file" {
		return "", fmt.Errorf("%s is not a file URI", u)
	}
	p := u.FsPath()
	if p == "" || !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s is not a file URI", u)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real, nil
	}
	return filepath.Clean(p), nil
}

// Buffer implements tools.Overlay.
func (d *documents) Buffer(absPath string) (string, int32, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	doc, ok := d.byPath[absPath]
	if !ok {
		return "", 0, false
	}
	return doc.text, doc.version, true
}

func (d *documents) open(item protocol.TextDocumentItem) error {
	p, err := pathOf(item.URI)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.byPath[p] = &document{uri: item.URI, path: p, text: item.Text, version: item.Version}
	return nil
}

func (d *documents) close(u uri.URI) error {
	p, err := pathOf(u)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.byPath, p)
	return nil
}

// change applies content changes in order, each against the text the previous
// one produced, as the protocol requires.
func (d *documents) change(params *protocol.DidChangeTextDocumentParams, enc encoding) error {
	p, err := pathOf(params.TextDocument.URI)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byPath[p]
	if !ok {
		return fmt.Errorf("didChange for %s, which is not open", params.TextDocument.URI)
	}
	text := doc.text
	for _, c := range params.ContentChanges {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangePartial:
			start, end := enc.offset(text, c.Range.Start), enc.offset(text, c.Range.End)
			if end < start {
				return fmt.Errorf("didChange for %s: range end before start", params.TextDocument.URI)
			}
			text = text[:start] + c.Text + text[end:]
		case *protocol.TextDocumentContentChangeWholeDocument:
			text = c.Text
		}
	}
	doc.text, doc.version = text, params.TextDocument.Version
	return nil
}

// get returns a copy of the open document at u.
func (d *documents) get(u uri.URI) (document, bool) {
	p, err := pathOf(u)
	if err != nil {
		return document{}, false
	}
	return d.getPath(p)
}

func (d *documents) getPath(p string) (document, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	doc, ok := d.byPath[p]
	if !ok {
		return document{}, false
	}
	return *doc, true
}
