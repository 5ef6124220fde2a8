package langserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.lsp.dev/protocol"
)

// settle is how long a push of a version is waited on for a later one of
// the same version (gopls publishes a file's diagnostics in steps).
const settle = 150 * time.Millisecond

// maxDiagnosticsWait bounds the wait for a version's push: past it the
// answer is "not known" and the run goes on (a request's own bound,
// the client's timeout, is longer: gopls loads a big module first).
const maxDiagnosticsWait = 15 * time.Second

// Diagnostics are the server's diagnostics of path at version, the one
// last synced: pulled where the server offers it, else the push that
// carries that version, waited for until ctx ends or, at most,
// maxDiagnosticsWait (then ErrNotKnown). A push without a version, or of another version, is
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
	params := protocol.DocumentDiagnosticParams{TextDocument: c.document(path)}
	if err := c.call(ctx, protocol.MethodTextDocumentDiagnostic, &params, &report); err != nil {
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
		out = append(out, c.plain(d))
	}
	return out, nil
}

// document is the identifier of path for the server.
func (c *Client) document(path string) protocol.TextDocumentIdentifier {
	return protocol.TextDocumentIdentifier{URI: c.uriOf(path)}
}

// at is the position pos of path for the server.
func (c *Client) at(path string, pos protocol.Position) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{TextDocument: c.document(path), Position: pos}
}

func (c *Client) pushedDiagnostics(ctx context.Context, path string, version int32) ([]Diagnostic, error) {
	deadline := time.NewTimer(min(c.timeout, maxDiagnosticsWait))
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
func (c *Client) Definition(ctx context.Context, path string, pos protocol.Position) ([]Location, error) {
	var raw json.RawMessage
	err := c.call(ctx, protocol.MethodTextDocumentDefinition, &protocol.DefinitionParams{TextDocumentPositionParams: c.at(path, pos)}, &raw)
	return c.locations(raw), err
}

// References are the uses of the symbol at pos, its declaration included.
func (c *Client) References(ctx context.Context, path string, pos protocol.Position) ([]Location, error) {
	var raw json.RawMessage
	err := c.call(ctx, protocol.MethodTextDocumentReferences, &protocol.ReferenceParams{
		TextDocumentPositionParams: c.at(path, pos), Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &raw)
	return c.locations(raw), err
}

// DocumentSymbols are the declarations of path, nested ones flattened.
func (c *Client) DocumentSymbols(ctx context.Context, path string) ([]Symbol, error) {
	var raw json.RawMessage
	err := c.call(ctx, protocol.MethodTextDocumentDocumentSymbol, &protocol.DocumentSymbolParams{TextDocument: c.document(path)}, &raw)
	return c.symbols(raw, path), err
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
	err := c.call(ctx, protocol.MethodWorkspaceSymbol, &protocol.WorkspaceSymbolParams{Query: query}, &raw)
	return c.symbols(raw, ""), err
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
	err := c.call(ctx, protocol.MethodTextDocumentRename, &protocol.RenameParams{TextDocumentPositionParams: c.at(path, pos), NewName: newName}, &edit)
	return edit, err
}

// executeCommand runs a server's command with arguments (each marshalled
// as JSON) and reads its result into result.
func (c *Client) executeCommand(ctx context.Context, command string, result any, args ...any) error {
	params := protocol.ExecuteCommandParams{Command: command}
	for _, a := range args {
		raw, err := json.Marshal(a)
		if err != nil {
			return err
		}
		params.Arguments = append(params.Arguments, protocol.LSPAny(raw))
	}
	return c.call(ctx, protocol.MethodWorkspaceExecuteCommand, &params, result)
}

// tsserverDiagnostics asks tsserver, through typescript-language-server,
// for a file's syntactic and semantic diagnostics: requests queued after
// the changes sent before, so they are of the version last sent.
func (c *Client) tsserverDiagnostics(ctx context.Context, path string) ([]Diagnostic, error) {
	var out []Diagnostic
	for _, kind := range []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync"} {
		var raw json.RawMessage
		if err := c.executeCommand(ctx, tsserverRequest, &raw, kind, tsFile{File: c.paths.toServer(path)}); err != nil {
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
			out = append(out, d.plain(c.paths))
		}
	}
	return out, nil
}

// tsserverRequest is typescript-language-server's command that passes a
// request to tsserver.
const tsserverRequest = "typescript.tsserverRequest"

// tsFile names a file to tsserver.
type tsFile struct {
	File             string `json:"file"`
	NeedFileNameList *bool  `json:"needFileNameList,omitempty"`
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

func (d tsDiagnostic) plain(paths pathMap) Diagnostic {
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
		Severity: sev, Source: cmp.Or(d.Source, "typescript"), Code: stringOf(d.Code), Message: paths.inText(d.Text)}
}

// Prepare readies the server to answer about path across its project:
// typescript-language-server answers references from its syntax server,
// which knows one file, until a request loads the project (projectInfo
// does). Other servers need nothing.
func (c *Client) Prepare(ctx context.Context, path string) {
	if !c.tsserver {
		return
	}
	no := false
	_ = c.executeCommand(ctx, tsserverRequest, nil, "projectInfo", tsFile{File: c.paths.toServer(path), NeedFileNameList: &no})
}
