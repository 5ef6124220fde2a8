package langserver

import (
	"encoding/json"
	"io"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// jsonCodec writes what we send with go.lsp.dev/protocol's encoder (its
// typed params, unions included) and reads leniently with encoding/json,
// as servers need: jsonrpc2's default decoder (encoding/json/v2) refuses
// invalid UTF-8 and duplicate names, which a server may send in a
// diagnostic.
type jsonCodec struct{}

func (jsonCodec) Marshal(v any) ([]byte, error) {
	if raw, ok := v.(jsonrpc2.RawMessage); ok {
		if raw == nil {
			return []byte("null"), nil
		}
		return raw, nil
	}
	return protocol.Marshal(v)
}

func (jsonCodec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return json.Unmarshal(data, v)
}

// pipes joins a process's stdout and stdin into the stream jsonrpc2 reads
// and writes.
type pipes struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipes) Close() error {
	err := p.w.Close()
	if rerr := p.ReadCloser.Close(); err == nil {
		err = rerr
	}
	return err
}

// What we read of the protocol. What we send is go.lsp.dev/protocol's
// typed params; what servers answer, often with unions (a diagnostic's
// message or code, a definition's Location or LocationLink, a symbol list
// of either shape), is read here leniently, field by field, and every URI
// in it is turned into the workspace's path by the client (pathOf).

type wireDiagnostic struct {
	Range    protocol.Range  `json:"range"`
	Severity int             `json:"severity"`
	Code     json.RawMessage `json:"code"`
	Source   string          `json:"source"`
	Message  json.RawMessage `json:"message"`
}

type publishParams struct {
	URI         uri.URI          `json:"uri"`
	Version     *int32           `json:"version"`
	Diagnostics []wireDiagnostic `json:"diagnostics"`
}

// Severity is a diagnostic's, as LSP numbers it.
type Severity int

const (
	SeverityError   Severity = 1
	SeverityWarning Severity = 2
)

// Diagnostic is what a server said of a place in a file.
type Diagnostic struct {
	Path     string // the workspace's name for the file (set by the Session)
	Range    protocol.Range
	Severity Severity // 0 when the server gave none: taken as an error
	Source   string
	Code     string
	Message  string
}

// plain is d as the run reads it, paths in its message named as the
// workspace's.
func (c *Client) plain(d wireDiagnostic) Diagnostic {
	return Diagnostic{Range: d.Range, Severity: Severity(d.Severity), Source: d.Source, Code: stringOf(d.Code), Message: c.paths.inText(stringOf(d.Message))}
}

// stringOf reads a string, a number, or a {value} object (MarkupContent).
func stringOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var m struct {
		Value string `json:"value"`
	}
	if json.Unmarshal(raw, &m) == nil && m.Value != "" {
		return m.Value
	}
	return strings.Trim(string(raw), `"`)
}

// Location is a place in a file of the workspace's naming.
type Location struct {
	Path  string
	Range protocol.Range
}

// location is a Location or a LocationLink.
type location struct {
	URI         uri.URI         `json:"uri"`
	Range       *protocol.Range `json:"range"`
	TargetURI   uri.URI         `json:"targetUri"`
	TargetRange *protocol.Range `json:"targetSelectionRange"`
}

func (c *Client) plainLocation(l location) (Location, bool) {
	switch {
	case l.URI != "" && l.Range != nil:
		return Location{Path: c.pathOf(l.URI), Range: *l.Range}, true
	case l.TargetURI != "" && l.TargetRange != nil:
		return Location{Path: c.pathOf(l.TargetURI), Range: *l.TargetRange}, true
	}
	return Location{}, false
}

// locations reads null, one location or a list of them.
func (c *Client) locations(raw json.RawMessage) []Location {
	var list []location
	if json.Unmarshal(raw, &list) != nil {
		var one location
		if json.Unmarshal(raw, &one) != nil {
			return nil
		}
		list = []location{one}
	}
	var out []Location
	for _, l := range list {
		if p, ok := c.plainLocation(l); ok && p.Path != "" {
			out = append(out, p)
		}
	}
	return out
}

// Symbol is a declaration: a DocumentSymbol (with its children flattened
// away, Container naming the parent) or a SymbolInformation.
type Symbol struct {
	Name      string
	Kind      int
	Container string
	Path      string
	// Range is the whole declaration; Selection is its name.
	Range, Selection protocol.Range
}

type wireSymbol struct {
	Name           string          `json:"name"`
	Kind           int             `json:"kind"`
	Range          *protocol.Range `json:"range"`
	SelectionRange *protocol.Range `json:"selectionRange"`
	Children       []wireSymbol    `json:"children"`
	Location       *location       `json:"location"`
	ContainerName  string          `json:"containerName"`
}

// symbols reads either symbol shape, flattening children; doc is the
// path of the document asked about ("" for the workspace's).
func (c *Client) symbols(raw json.RawMessage, doc string) []Symbol {
	var list []wireSymbol
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []Symbol
	var walk func(ws []wireSymbol, container string)
	walk = func(ws []wireSymbol, container string) {
		for _, w := range ws {
			s := Symbol{Name: w.Name, Kind: w.Kind, Container: container, Path: doc}
			switch {
			case w.Range != nil:
				s.Range, s.Selection = *w.Range, *w.Range
				if w.SelectionRange != nil {
					s.Selection = *w.SelectionRange
				}
			case w.Location != nil:
				l, ok := c.plainLocation(*w.Location)
				if !ok || l.Path == "" {
					continue
				}
				s.Path, s.Range, s.Selection = l.Path, l.Range, l.Range
				s.Container = w.ContainerName
			default:
				continue
			}
			out = append(out, s)
			walk(w.Children, w.Name)
		}
	}
	walk(list, "")
	return out
}
