package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/server/apply"
	"github.com/agent-lsp/agent-lsp/server/documents"
	"github.com/agent-lsp/agent-lsp/tools"
)

// proposals is what becomes of the runs' proposals: each sent to the
// editor as a WorkspaceEdit its capabilities take (or offered as code
// actions carrying it), what the editor did with it read from its files
// (applied.go), its new files offered where the editor cannot create them,
// and its run's notes kept with it.
type proposals struct {
	runs      *registry
	docs      *documents.Store
	win       *window
	workspace *workspaceConfig // the settings: how long a question waits
	notes     *noteKeeper
	offers    *offers
}

// annotationID tags every edit of a proposal so clients can preview it.
// The edits of a sensitive file (what editors, the agent or CI run or read)
// carry instead the annotation of its kind, sensitiveAnnotationPrefix and the
// reason tools.SensitiveRules gives, so each kind is confirmed on its own
// and a client reads a file's reason from its edits' annotation id.
const (
	annotationID              = "agent-lsp"
	sensitiveAnnotationPrefix = "agent-lsp.sensitive: "
)

// ErrStale is wrapped when the user's edits overlap the agent's.
var ErrStale = errors.New("the file changed where the agent wants to edit it")

// workspaceEdit turns a proposal into one WorkspaceEdit against the buffers
// as they are now: versioned TextDocumentEdits with minimal line edits,
// CreateFile for new files, and needsConfirmation annotations where the
// client supports them. Where it does not, sensitive files are sent only if
// the user says so (approvedChanges). A buffer changed since the agent read
// it is rebased when the changes don't overlap and refused when they do.
// New files a client cannot create come back in newFiles, to be offered
// another way.
func (ps *proposals) workspaceEdit(p *proposal, caps clientCaps) (edit protocol.WorkspaceEdit, newFiles []tools.Change, err error) {
	changes := p.changes
	if !(caps.annotations && caps.documentChanges) {
		if changes, err = ps.approvedChanges(p); err != nil {
			return protocol.WorkspaceEdit{}, nil, err
		}
	}
	return ps.editOf(p, changes, caps)
}

// editOf is the edit of changes, p's or a part of them, as caps can take
// it; newFiles are those it cannot create.
func (ps *proposals) editOf(p *proposal, changes []tools.Change, caps clientCaps) (edit protocol.WorkspaceEdit, newFiles []tools.Change, err error) {
	annotated := caps.annotations && caps.documentChanges
	if !caps.documentChanges {
		edit.Changes = map[uri.URI][]protocol.TextEdit{}
	}
	var sensitive []tools.Change
	for _, c := range changes {
		if !c.Existed && !(caps.documentChanges && caps.createFiles) {
			_, _, exists, err := currentText(ps.docs, c.AbsPath)
			if err != nil {
				return edit, nil, err
			}
			if exists {
				return edit, nil, fmt.Errorf("%s: %w (it was created after the agent started)", c.Path, ErrStale)
			}
			newFiles = append(newFiles, c)
			if newFilesInBuffers(caps) {
				// ALE edits a file it has no buffer of by :edit-ing it, a
				// missing one too: the new file's text lands in a buffer,
				// created when the user writes it. An empty buffer is one
				// empty line to ALE: the text replaces it.
				whole := protocol.Range{End: protocol.Position{Line: 1}}
				edit.Changes[ps.docs.URIOf(c.AbsPath)] = []protocol.TextEdit{{Range: whole, NewText: c.New}}
			}
			continue
		}
		added, err := ps.addChange(&edit, c, caps)
		if err != nil {
			return edit, nil, err
		}
		if _, ok := c.Sensitive(); ok && added {
			sensitive = append(sensitive, c)
		}
	}
	if annotated {
		edit.ChangeAnnotations = changeAnnotations(p.request, sensitive)
	}
	return edit, newFiles, nil
}

// newFilesInBuffers: the client applies a proposal from a code action's
// plain edit (ALE), which brings each new file's text to a buffer of its
// own; the file is created when the user writes it.
func newFilesInBuffers(caps clientCaps) bool { return !caps.applyEdit && !caps.documentChanges }

// editsNothing reports whether edit changes no file.
func editsNothing(edit protocol.WorkspaceEdit) bool {
	return len(edit.DocumentChanges) == 0 && len(edit.Changes) == 0
}

// addChange adds one file's change to edit; added is false when the file
// already holds what the agent wants.
func (ps *proposals) addChange(edit *protocol.WorkspaceEdit, c tools.Change, caps clientCaps) (added bool, err error) {
	u := ps.docs.URIOf(c.AbsPath)
	current, version, exists, err := currentText(ps.docs, c.AbsPath)
	if err != nil {
		return false, err
	}
	ann := annotationOf(c, caps)
	if !c.Existed {
		if exists {
			return false, fmt.Errorf("%s: %w (it was created after the agent started)", c.Path, ErrStale)
		}
		create := &protocol.CreateFile{Kind: "create", URI: u}
		create.AnnotationID = ann
		var all protocol.Range
		if caps.newFileLine {
			all.End.Line = 1
		}
		edit.DocumentChanges = append(edit.DocumentChanges, create, textDocumentEdit(u, nil, []protocol.TextEdit{{Range: all, NewText: c.New}}, ann))
		return true, nil
	}
	if !exists {
		return false, fmt.Errorf("%s: %w (it was deleted after the agent read it)", c.Path, ErrStale)
	}
	target := c.New
	if current != c.Original {
		if target, err = rebase(c.Original, current, c.New); err != nil {
			return false, fmt.Errorf("%s: %w", c.Path, err)
		}
	}
	edits := textEdits(current, target, caps.encoding)
	if len(edits) == 0 {
		return false, nil
	}
	if caps.documentChanges {
		edit.DocumentChanges = append(edit.DocumentChanges, textDocumentEdit(u, version, edits, ann))
	} else {
		edit.Changes[u] = edits
	}
	return true, nil
}

// annotationOf is the annotation c's edits carry, "" where the client has none.
func annotationOf(c tools.Change, caps clientCaps) protocol.ChangeAnnotationIdentifier {
	if !caps.annotations {
		return ""
	}
	if why, ok := c.Sensitive(); ok {
		return sensitiveAnnotationID(why)
	}
	return annotationID
}

// sensitiveAnnotationID is the annotation of the sensitive files that are
// so for the reason why: "agent-lsp.sensitive: editor configuration (…)".
func sensitiveAnnotationID(why string) protocol.ChangeAnnotationIdentifier {
	return protocol.ChangeAnnotationIdentifier(sensitiveAnnotationPrefix + why)
}

// changeAnnotations describes the proposal's annotations: every edit needs
// confirmation, and each kind of sensitive file gets its own "⚠" group
// saying why, with the files of that kind.
func changeAnnotations(prompt string, sensitive []tools.Change) map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation {
	yes := true
	desc := "Review the agent's changes before applying them."
	out := map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
		annotationID: {Label: "agent-lsp: " + summarize(prompt, 60), NeedsConfirmation: &yes, Description: &desc},
	}
	files := map[string][]string{} // by reason
	for _, c := range sensitive {
		why, _ := c.Sensitive()
		files[why] = append(files[why], tools.Printable(c.Path))
	}
	for why, paths := range files {
		desc := fmt.Sprintf("%s: changes what editors, the agent or CI run or read; apply only if you meant to: %s", why, strings.Join(paths, ", "))
		out[sensitiveAnnotationID(why)] = protocol.ChangeAnnotation{Label: "⚠ agent-lsp: " + why, NeedsConfirmation: &yes, Description: &desc}
	}
	return out
}

func textDocumentEdit(u uri.URI, version *int32, edits []protocol.TextEdit, ann protocol.ChangeAnnotationIdentifier) *protocol.TextDocumentEdit {
	tde := &protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{Version: version}}
	tde.TextDocument.URI = u
	for _, e := range edits {
		if ann != "" {
			tde.Edits = append(tde.Edits, &protocol.AnnotatedTextEdit{TextEdit: e, AnnotationID: ann})
		} else {
			tde.Edits = append(tde.Edits, &e)
		}
	}
	return tde
}

// Answers offered for sensitive files where the client cannot mark them for
// confirmation; the safe one first, as clients preselect it.
const (
	sensitiveLeaveOut = "Leave them out"
	sensitiveApply    = "Apply them too"
)

// approvedChanges is p's changes without the sensitive files the user did
// not explicitly approve; the user is told which were left out. Leaving out
// every file is an error: there would be nothing to apply.
func (ps *proposals) approvedChanges(p *proposal) ([]tools.Change, error) {
	sensitive := tools.Proposal{Changes: p.changes}.Sensitive()
	// workspaceEdit has no request context; the connection's end fails the question.
	ctx := context.Background()
	if len(sensitive) == 0 || ps.confirmSensitive(ctx, sensitive) {
		return p.changes, nil
	}
	rest, _ := apply.Split(p.changes, false)
	if len(rest) == 0 {
		return nil, fmt.Errorf("its files need your explicit approval, which was not given: %s (%s shows the diff)", apply.DescribeSensitive(sensitive), CommandShowProposal)
	}
	ps.win.showMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
		"agent-lsp: %s: applying the rest without the files that need your explicit approval: %s (%s shows their diff)",
		p.name(), apply.DescribeSensitive(sensitive), CommandShowProposal))
	return rest, nil
}

// confirmSensitive asks whether to apply sensitive files too. Only an explicit
// "Apply them too" says yes: a client that cannot ask (Helix answers "Method
// not found"), an error or a dismissal leaves them out.
func (ps *proposals) confirmSensitive(ctx context.Context, sensitive []tools.Change) bool {
	params := &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: "agent-lsp's proposal changes what editors, the agent or CI run or read:\n" + apply.DescribeSensitive(sensitive) + "\nApply these files too?",
		Actions: []protocol.MessageActionItem{{Title: sensitiveLeaveOut}, {Title: sensitiveApply}},
	}
	bound := ps.workspace.settings().ApprovalTimeout()
	ask, cancel := context.WithTimeoutCause(ctx, bound, errNoAnswer)
	defer cancel()
	choice, err := ps.win.client.ShowMessageRequest(ask, params)
	if err != nil {
		if errors.Is(context.Cause(ask), errNoAnswer) {
			err = fmt.Errorf("no answer within %s (approval_timeout_s)", bound)
		}
		ps.win.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("agent-lsp: sensitive files left out: the editor could not ask (%v)", err))
		return false
	}
	return choice != nil && choice.Title == sensitiveApply
}

// currentText is what the user has now: the open buffer (with its version)
// or the file on disk.
func currentText(docs *documents.Store, abs string) (text string, version *int32, exists bool, err error) {
	if doc, ok := docs.GetPath(abs); ok {
		v := doc.Version
		return doc.Text, &v, true, nil
	}
	data, err := tools.ReadRegular(abs) // a FIFO put there must not hang the server
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, err
	}
	return string(data), nil, true, nil
}

// textEdits is the minimal line diff from current to target, as LSP edits.
func textEdits(current, target string, enc documents.Encoding) []protocol.TextEdit {
	var out []protocol.TextEdit
	for _, e := range udiff.Lines(current, target) {
		out = append(out, protocol.TextEdit{Range: enc.SpanRange(current, e.Start, e.End), NewText: e.New})
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

// summarize is s on one line of at most n runes, as a title, label or
// progress message shows it: its whitespace collapsed, and what a terminal
// or an editor would obey instead of show escaped (tools.Displayable) — a
// prompt may come from a file's comment, a diagnostic from another server.
func summarize(s string, n int) string {
	s = tools.Displayable(strings.Join(strings.Fields(s), " "))
	if len([]rune(s)) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}
