package langserver

import (
	"context"
	"encoding/json"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Sync makes the server's document at path hold text: didOpen the first
// time, else didChange (the whole text) when it differs or bump is set (a
// new version, so that what the server says next is known to be computed
// after every change sent before). It returns the document's version.
// Versions of a path only rise over the server's life, across closes and
// reopenings: an answer for an earlier text can never pass for the
// current one's.
func (c *Client) Sync(ctx context.Context, path, language, text string, bump bool) (int32, error) {
	c.mu.Lock()
	d, open := c.docs[path]
	rebuild := false
	switch {
	case !open:
		d = &document{version: c.versions[path] + 1, text: text}
		c.docs[path] = d
	case d.text != text || bump:
		rebuild = c.rebuild && d.text == text
		d.version++
		d.text = text
	default:
		v := d.version
		c.mu.Unlock()
		return v, nil
	}
	v := d.version
	c.versions[path] = v
	c.mu.Unlock()
	id := protocol.TextDocumentIdentifier{URI: c.uriOf(path)}
	if !open {
		return v, c.broken(c.conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: id.URI, LanguageID: protocol.LanguageKind(language), Version: v, Text: text}}))
	}
	change := protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: id, Version: v},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: text}},
	}
	if rebuild {
		return v, c.broken(c.conn.Notify(ctx, protocol.MethodTextDocumentDidChange, &clangdChange{change.TextDocument, []wholeText{{text}}, true}))
	}
	return v, c.broken(c.conn.Notify(ctx, protocol.MethodTextDocumentDidChange, &change))
}

// clangdChange is a didChange with clangd's forceRebuild extension (not
// the protocol's type embedded: its encoder would drop the extension).
type clangdChange struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []wholeText                              `json:"contentChanges"`
	ForceRebuild   bool                                     `json:"forceRebuild"`
}

type wholeText struct {
	Text string `json:"text"`
}

// Text is what the server has of path, if it is open.
func (c *Client) Text(path string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.docs[path]
	if !ok {
		return "", false
	}
	return d.text, true
}

// Open lists the open documents' paths.
func (c *Client) Open() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.docs))
	for path := range c.docs {
		out = append(out, path)
	}
	return out
}

// CloseDocument sends didClose: the server goes back to the file on disk.
func (c *Client) CloseDocument(ctx context.Context, path string) error {
	c.mu.Lock()
	_, open := c.docs[path]
	delete(c.docs, path)
	delete(c.published, path)
	c.mu.Unlock()
	if !open {
		return nil
	}
	return c.conn.Notify(ctx, protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: c.uriOf(path)}})
}

// publish takes a publishDiagnostics of an open document; a push of a
// version older than the one it has is late, and dropped.
func (c *Client) publish(raw json.RawMessage) {
	var head struct {
		URI uri.URI `json:"uri"`
	}
	if json.Unmarshal(raw, &head) != nil {
		return
	}
	path := c.pathOf(head.URI)
	c.mu.Lock()
	_, open := c.docs[path]
	c.mu.Unlock()
	if !open {
		return // only open documents have versions to judge by: a flood of others is not even read
	}
	var p publishParams
	if json.Unmarshal(raw, &p) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, open := c.docs[path]; !open {
		return
	}
	pub := publication{hasVersion: p.Version != nil, at: time.Now()}
	if p.Version != nil {
		pub.version = *p.Version
		if old, ok := c.published[path]; ok && old.hasVersion && old.version > pub.version {
			return // a late push of an older version
		}
	}
	for i, d := range p.Diagnostics {
		if i == maxDiagnosticsPerFile {
			break
		}
		pub.diags = append(pub.diags, c.plain(d))
	}
	c.published[path] = pub
	c.notifyLocked()
}

// notifyLocked wakes whoever waits on a change of what the server said;
// c.mu is held.
func (c *Client) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}
