package langserver

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// WorkspaceEdit is a server's edit: text edits per document, in either of
// LSP's two shapes, and file operations.
type WorkspaceEdit struct {
	Changes         map[uri.URI][]protocol.TextEdit `json:"changes"`
	DocumentChanges []documentChange                `json:"documentChanges"`
}

// documentChange is a TextDocumentEdit or a create/rename/delete.
type documentChange struct {
	TextDocument *struct {
		URI     uri.URI `json:"uri"`
		Version *int32  `json:"version"`
	} `json:"textDocument"`
	Edits []json.RawMessage `json:"edits"`
	Kind  string            `json:"kind"`
	URI   uri.URI           `json:"uri"`
	Old   uri.URI           `json:"oldUri"`
	New   uri.URI           `json:"newUri"`
}

// fileEdits are a WorkspaceEdit's text edits by file path, with the
// version each was computed on when the server said it.
type fileEdits struct {
	edits   []protocol.TextEdit
	version *int32
}

// byFile flattens e into edits per file path, each of the workspace's
// naming (pathOf); a file operation other than creating a file is
// refused (the changeset stages text, not renames).
func (e WorkspaceEdit) byFile(pathOf func(uri.URI) string) (map[string]*fileEdits, []string, error) {
	out := map[string]*fileEdits{}
	var created []string
	add := func(u uri.URI, es []protocol.TextEdit, v *int32) {
		p := pathOf(u)
		if out[p] == nil {
			out[p] = &fileEdits{}
		}
		out[p].edits = append(out[p].edits, es...)
		if v != nil {
			out[p].version = v
		}
	}
	for u, es := range e.Changes {
		add(u, es, nil)
	}
	for _, dc := range e.DocumentChanges {
		switch {
		case dc.TextDocument != nil:
			var es []protocol.TextEdit
			for _, raw := range dc.Edits {
				var te protocol.TextEdit
				if err := json.Unmarshal(raw, &te); err != nil {
					return nil, nil, fmt.Errorf("an unreadable text edit: %v", err)
				}
				es = append(es, te)
			}
			add(dc.TextDocument.URI, es, dc.TextDocument.Version)
		case dc.Kind == "create":
			created = append(created, pathOf(dc.URI))
		case dc.Kind != "":
			return nil, nil, fmt.Errorf("it would %s a file, which agent-lsp does not stage", dc.Kind)
		}
	}
	return out, created, nil
}

// applyEdits applies non-overlapping edits to text, positions counted in enc.
func applyEdits(text string, edits []protocol.TextEdit, enc encoding) (string, error) {
	type span struct {
		start, end int
		text       string
	}
	spans := make([]span, len(edits))
	for i, e := range edits {
		spans[i] = span{offsetOf(text, e.Range.Start, enc), offsetOf(text, e.Range.End, enc), e.NewText}
		if spans[i].end < spans[i].start {
			return "", fmt.Errorf("an edit ends before it starts")
		}
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	last := 0
	for _, s := range spans {
		if s.start < last {
			return "", fmt.Errorf("edits overlap")
		}
		b.WriteString(text[last:s.start])
		b.WriteString(s.text)
		last = s.end
	}
	b.WriteString(text[last:])
	return b.String(), nil
}
