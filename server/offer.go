package server

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/tools"
)

// A client that cannot create files through a workspace edit (no
// resourceOperations "create": eglot, Helix, older Neovim) still gets the
// edits to existing files; each new file is offered another way, and the
// user is told exactly what happened.

// offeredFile is a new file offered as a document rather than created.
type offeredFile struct {
	Path     string  `json:"path"`     // where the agent meant it, relative to the workspace
	Document uri.URI `json:"document"` // a copy of its content, under the cache dir
	Shown    bool    `json:"shown"`    // the client opened the copy
}

// offerContentLimit bounds the content of new files put in a message.
const offerContentLimit = 4000

// offers offers the new files of an applied proposal that the client
// could not create.
type offers struct{ win *window }

// newFiles writes each new file's content to a document under the cache
// dir, opens it where the client can show documents, and tells the user what
// was applied and where each new file is.
func (o *offers) newFiles(ctx context.Context, p *proposal, newFiles []tools.Change, applied int) []offeredFile {
	if len(newFiles) == 0 {
		return nil
	}
	var offered []offeredFile
	var msg strings.Builder
	if applied > 0 {
		fmt.Fprintf(&msg, "agent-lsp: %s: applied the edits to %d existing file(s). ", p.name(), applied)
	} else {
		fmt.Fprintf(&msg, "agent-lsp: %s: ", p.name())
	}
	fmt.Fprintf(&msg, "This editor cannot create files through the language server, so the %d new file(s) are not created; save each one yourself:", len(newFiles))
	for _, c := range newFiles {
		u, shown := o.win.showFile(ctx, filepath.Join(p.name(), "new", c.Path), c.New, false)
		offered = append(offered, offeredFile{Path: c.Path, Document: u, Shown: shown})
		where := ""
		if u != "" {
			where = " (its content is in " + u.FsPath() + ")"
		}
		if shown {
			fmt.Fprintf(&msg, "\n- %s: opened as a document; save it as %s", tools.Printable(c.Path), tools.Printable(c.Path))
			continue
		}
		fmt.Fprintf(&msg, "\n- %s%s:\n%s", tools.Printable(c.Path), where, excerpt(c.New, offerContentLimit))
	}
	o.win.showMessage(ctx, protocol.MessageTypeWarning, msg.String())
	return offered
}

// excerpt is text cut to about n bytes at a line break, keeping its lines.
func excerpt(text string, n int) string {
	text = strings.TrimRight(text, "\n")
	if len(text) <= n {
		return text
	}
	cut := strings.LastIndexByte(text[:n], '\n')
	if cut < n/2 {
		cut = n
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
	}
	return text[:cut] + "\n…"
}
