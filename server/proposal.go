package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Proposal states.
const (
	proposalPending   = "pending"
	proposalApplied   = "applied"
	proposalDiscarded = "discarded"
)

// proposal is a finished run's changeset, waiting for the user.
type proposal struct {
	id      string
	runID   string
	prompt  string
	changes []tools.Change
	state   string
}

func (p *proposal) diff() string { return tools.Proposal{Changes: p.changes}.Diff() }

// annotationID tags every edit of a proposal so clients can preview it.
const annotationID = "agent-lsp"

// ErrStale is wrapped when the user's edits overlap the agent's.
var ErrStale = errors.New("the file changed where the agent wants to edit it")

// workspaceEdit turns a proposal into one WorkspaceEdit against the buffers
// as they are now: versioned TextDocumentEdits with minimal line edits,
// CreateFile for new files, and one needsConfirmation annotation where the
// client supports it. A buffer changed since the agent read it is rebased when
// the changes don't overlap and refused when they do.
func (s *Server) workspaceEdit(p *proposal, caps clientCaps) (protocol.WorkspaceEdit, error) {
	var edit protocol.WorkspaceEdit
	if !caps.documentChanges {
		edit.Changes = map[uri.URI][]protocol.TextEdit{}
	}
	for _, c := range p.changes {
		u := uri.File(c.AbsPath)
		current, version, exists, err := s.currentText(c.AbsPath)
		if err != nil {
			return edit, err
		}
		if !c.Existed {
			if exists {
				return edit, fmt.Errorf("%s: %w (it was created after the agent started)", c.Path, ErrStale)
			}
			if !caps.documentChanges || !caps.createFiles {
				return edit, fmt.Errorf("%s is a new file and this editor cannot create files through a workspace edit; see agent.showProposal", c.Path)
			}
			create := &protocol.CreateFile{Kind: "create", URI: u}
			if caps.annotations {
				create.AnnotationID = annotationID
			}
			edit.DocumentChanges = append(edit.DocumentChanges, create,
				s.textDocumentEdit(u, nil, []protocol.TextEdit{{NewText: c.New}}, caps))
			continue
		}
		if !exists {
			return edit, fmt.Errorf("%s: %w (it was deleted after the agent read it)", c.Path, ErrStale)
		}
		target := c.New
		if current != c.Original {
			if target, err = rebase(c.Original, current, c.New); err != nil {
				return edit, fmt.Errorf("%s: %w", c.Path, err)
			}
		}
		edits := textEdits(current, target, caps.encoding)
		if len(edits) == 0 {
			continue
		}
		if caps.documentChanges {
			edit.DocumentChanges = append(edit.DocumentChanges, s.textDocumentEdit(u, version, edits, caps))
		} else {
			edit.Changes[u] = edits
		}
	}
	if caps.annotations && caps.documentChanges {
		yes := true
		desc := "Review the agent's changes before applying them."
		edit.ChangeAnnotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
			annotationID: {Label: "agent-lsp: " + summarize(p.prompt, 60), NeedsConfirmation: &yes, Description: &desc},
		}
	}
	return edit, nil
}

func (s *Server) textDocumentEdit(u uri.URI, version *int32, edits []protocol.TextEdit, caps clientCaps) *protocol.TextDocumentEdit {
	tde := &protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{Version: version}}
	tde.TextDocument.URI = u
	for _, e := range edits {
		if caps.annotations {
			tde.Edits = append(tde.Edits, &protocol.AnnotatedTextEdit{TextEdit: e, AnnotationID: annotationID})
		} else {
			tde.Edits = append(tde.Edits, &e)
		}
	}
	return tde
}

// currentText is what the user has now: the open buffer (with its version)
// or the file on disk.
func (s *Server) currentText(abs string) (text string, version *int32, exists bool, err error) {
	if doc, ok := s.docs.getPath(abs); ok {
		v := doc.version
		return doc.text, &v, true, nil
	}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, err
	}
	return string(data), nil, true, nil
}

// textEdits is the minimal line diff from current to target, as LSP edits.
func textEdits(current, target string, enc encoding) []protocol.TextEdit {
	var out []protocol.TextEdit
	for _, e := range udiff.Lines(current, target) {
		out = append(out, protocol.TextEdit{Range: enc.spanRange(current, e.Start, e.End), NewText: e.New})
	}
	return out
}

// rebase applies the agent's change (original → proposed) on top of the
// user's (original → current) when no line is touched by both.
func rebase(original, current, proposed string) (string, error) {
	agentEdits := udiff.Lines(original, proposed)
	userEdits := udiff.Lines(original, current)
	for _, a := range agentEdits {
		for _, u := range userEdits {
			if overlaps(a, u) {
				return "", fmt.Errorf("%w: you edited line %d, which the agent changes too; ask again or discard the proposal",
					ErrStale, strings.Count(original[:u.Start], "\n")+1)
			}
		}
	}
	merged, ok := udiff.Merge(agentEdits, userEdits)
	if !ok {
		return "", ErrStale
	}
	return udiff.Apply(original, merged)
}

// overlaps reports whether two edits of the same text touch a common line:
// their ranges intersect, or both insert at the same point, or one inserts
// strictly inside the other's range.
func overlaps(a, b udiff.Edit) bool {
	switch {
	case a.Start == a.End && b.Start == b.End:
		return a.Start == b.Start
	case a.Start == a.End:
		return b.Start < a.Start && a.Start < b.End
	case b.Start == b.End:
		return a.Start < b.Start && b.Start < a.End
	}
	return a.Start < b.End && b.Start < a.End
}

func summarize(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}
