package acp

import (
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/server/apply"
	"github.com/agent-lsp/agent-lsp/tools"
)

// write applies accepted changes, after the client's answer only: through
// fs/write_text_file when the client offers it (its buffers, its undo),
// else to disk. Every file is checked first — still inside the workspace,
// and as the agent read it (the client's buffer, or disk) — and one that
// is not refuses the whole write, rather than overwrite the user's edits.
func (t *turn) write(changes []tools.Change) (report string, err error) {
	written, err := apply.Write(t.ws, changes, t.current, t.writeOne)
	if err != nil {
		if errors.Is(err, apply.ErrNothingWritten) {
			return "", fmt.Errorf("%w; ask again to redo it on the current files", err)
		}
		return "", err
	}
	if len(written) == 0 {
		return "Nothing to write.", nil
	}
	via := "to disk"
	if t.caps.Fs.WriteTextFile {
		via = "through the editor"
	}
	return fmt.Sprintf("Applied %s: %s.", via, strings.Join(written, ", ")), nil
}

// current is the file as the user has it now: the client's buffer, else disk.
func (t *turn) current(abs string) (text string, exists bool, err error) {
	if t.files != nil {
		if text, _, ok := t.files.Buffer(abs); ok {
			return text, true, nil
		}
	}
	return apply.OnDisk(abs)
}

func (t *turn) writeOne(c tools.Change) error {
	if t.caps.Fs.WriteTextFile {
		_, err := t.a.conn.WriteTextFile(t.ctx, sdk.WriteTextFileRequest{SessionId: t.s.id, Path: c.AbsPath, Content: c.New})
		return err
	}
	return apply.WriteFile(c.AbsPath, c.New)
}
