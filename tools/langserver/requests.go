package langserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// settle is how long a push of a version is waited on for a later one of
// the same version (gopls publishes a file's diagnostics in steps).
const settle = 150 * time.Millisecond

// Diagnostics are the server's diagnostics of path at version, the one
// last synced: pulled where the server offers it, else the push that
// carries that version, waited for until ctx ends or the client's timeout
// (then ErrNotKnown). A push without a version, or of another version, is
// never taken for this one.
func (c *Client) Diagnostics(ctx context.Context, path string, version int32) ([]Diagnostic, error) {
	c.mu.Lock()
	pull, tsserver := c.pull, c.tsserver
	c.mu.Unlock()
	switch {
	case pull:
		return c.pullDiagnostics(ctx, path)
	case tsserver:
		return c.tsserverDiagnostics(ctx, path)
	}
	return c.pushedDiagnostics(ctx, path, version)
}

func (c *Client) pullDiagnostics(ctx context.Context, path string) ([]Diagnostic, error) {
	var report struct {
		Kind  string           `json:"kind"`
		Items []wireDiagnostic `json:"items"`
	}
	if err := c.call(ctx, "textDocument/diagnostic", map[string]any{"textDocument": textDocument{URI: uri.File(path)}}, &report); err != nil {
		return nil, err
	}
	if report.Kind != "full" {
		return nil, ErrNotKnown // "unchanged" answers a previous result id, and we send none
	}
	var out []Diagnostic
	for i, d := range report.Items {
		if i == maxDiagnosticsPerFile {
			break
		}
		out = append(out, d.plain())
	}
	return out, nil
}

func (c *Client) pushedDiagnostics(ctx context.Context, path string, version int32) ([]Diagnostic, error) {
	deadline := time.NewTimer(c.timeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		pub, ok := c.published[path]
		changed := c.changed
		c.mu.Unlock()
		if ok && pub.hasVersion && pub.version == version {
			if wait := settle - time.Since(pub.at); wait > 0 {
				select {
				case <-time.After(wait):
					continue // a later push of the same version replaces it
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return pub.diags, nil
		}
		if ok && pub.hasVersion && pub.version > version {
			return nil, ErrNotKnown // the document moved on
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			return nil, ErrNotKnown
		case <-c.exited:
			return nil, c.exitError()
		}
	}
}

// Definition is where the symbol at pos in path is declared.
func (c *Client) Definition(ctx context.Context, path string, pos protocol.Position) ([]protocol.Location, error) {
	var raw json.RawMessage
	err := c.call(ctx, "textDocument/definition", positionParams{TextDocument: textDocument{URI: uri.File(path)}, Position: pos}, &raw)
	return locations(raw), err
}

// References are the uses of the symbol at pos, its declaration included.
func (c *Client) References(ctx context.Context, path string, pos protocol.Position) ([]protocol.Location, error) {
	var raw json.RawMessage
	err := c.call(ctx, "textDocument/references", map[string]any{
		"textDocument": textDocument{URI: uri.File(path)}, "position": pos, "context": map[string]bool{"includeDeclaration": true}}, &raw)
	return locations(raw), err
}

// DocumentSymbols are the declarations of path, nested ones flattened.
func (c *Client) DocumentSymbols(ctx context.Context, path string) ([]Symbol, error) {
	var raw json.RawMessage
	u := uri.File(path)
	err := c.call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": textDocument{URI: u}}, &raw)
	return symbols(raw, u), err
}

// WorkspaceSymbols are the declarations the server finds for query.
func (c *Client) WorkspaceSymbols(ctx context.Context, query string) ([]Symbol, error) {
	c.mu.Lock()
	offered := offers(c.caps.WorkspaceSymbolProvider)
	c.mu.Unlock()
	if !offered {
		return nil, nil
	}
	var raw json.RawMessage
	err := c.call(ctx, "workspace/symbol", map[string]any{"query": query}, &raw)
	return symbols(raw, ""), err
}

// Rename asks for the edit that renames the symbol at pos.
func (c *Client) Rename(ctx context.Context, path string, pos protocol.Position, newName string) (WorkspaceEdit, error) {
	c.mu.Lock()
	offered := offers(c.caps.RenameProvider)
	c.mu.Unlock()
	if !offered {
		return WorkspaceEdit{}, fmt.Errorf("%s does not rename", c.name)
	}
	var edit WorkspaceEdit
	err := c.call(ctx, "textDocument/rename", map[string]any{
		"textDocument": textDocument{URI: uri.File(path)}, "position": pos, "newName": newName}, &edit)
	return edit, err
}

// Close ends the server: shutdown and exit, and after a grace the
// process is killed. It returns once the process ended.
func (c *Client) Close() {
	select {
	case <-c.exited:
	default:
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if _, err := c.conn.Call(ctx, "shutdown", nil, nil); err == nil {
			_ = c.conn.Notify(ctx, "exit", nil)
		}
		cancel()
		select {
		case <-c.exited:
		case <-time.After(2 * time.Second):
		}
	}
	c.kill()
}

// kill ends the process and the connection, and waits for the process.
func (c *Client) kill() {
	_ = c.proc.Kill()
	<-c.exited
	_ = c.conn.Close()
}

// tsserverDiagnostics asks tsserver, through typescript-language-server,
// for a file's syntactic and semantic diagnostics: requests queued after
// the changes sent before, so they are of the version last sent.
func (c *Client) tsserverDiagnostics(ctx context.Context, path string) ([]Diagnostic, error) {
	var out []Diagnostic
	for _, kind := range []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync"} {
		var raw json.RawMessage
		err := c.call(ctx, "workspace/executeCommand", map[string]any{
			"command": "typescript.tsserverRequest", "arguments": []any{kind, map[string]any{"file": path}}}, &raw)
		if err != nil {
			return nil, err
		}
		var resp struct {
			Body []tsDiagnostic `json:"body"`
		}
		if json.Unmarshal(raw, &resp) != nil {
			return nil, ErrNotKnown
		}
		for _, d := range resp.Body {
			if len(out) == maxDiagnosticsPerFile {
				break
			}
			out = append(out, d.plain())
		}
	}
	return out, nil
}

// tsDiagnostic is tsserver's: 1-based lines and offsets.
type tsDiagnostic struct {
	Start, End struct {
		Line   uint32 `json:"line"`
		Offset uint32 `json:"offset"`
	}
	Text     string          `json:"text"`
	Code     json.RawMessage `json:"code"`
	Category string          `json:"category"`
	Source   string          `json:"source"`
}

func (d tsDiagnostic) plain() Diagnostic {
	pos := func(line, offset uint32) protocol.Position {
		return protocol.Position{Line: max(line, 1) - 1, Character: max(offset, 1) - 1}
	}
	sev := SeverityError
	switch d.Category {
	case "warning":
		sev = SeverityWarning
	case "suggestion", "message":
		sev = 3
	}
	return Diagnostic{Range: protocol.Range{Start: pos(d.Start.Line, d.Start.Offset), End: pos(d.End.Line, d.End.Offset)},
		Severity: sev, Source: cmp.Or(d.Source, "typescript"), Code: stringOf(d.Code), Message: d.Text}
}

// Prepare readies the server to answer about path across its project:
// typescript-language-server answers references from its syntax server,
// which knows one file, until a request loads the project (projectInfo
// does). Other servers need nothing.
func (c *Client) Prepare(ctx context.Context, path string) {
	if !c.tsserver {
		return
	}
	_ = c.call(ctx, "workspace/executeCommand", map[string]any{
		"command": "typescript.tsserverRequest", "arguments": []any{"projectInfo", map[string]any{"file": path, "needFileNameList": false}}}, nil)
}
