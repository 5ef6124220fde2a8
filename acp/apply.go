package acp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/tools"
)

// write applies accepted changes, after the client's answer only: through
// fs/write_text_file when the client offers it (its buffers, its undo),
// else to disk. Every file is checked first — still inside the workspace,
// and as the agent read it (the client's buffer, or disk) — and one that
// is not refuses the whole write, rather than overwrite the user's edits.
func (t *turn) write(changes []tools.Change) (report string, err error) {
	for _, c := range changes {
		if err := t.check(c); err != nil {
			return "", fmt.Errorf("nothing was written: %w; ask again to redo it on the current files", err)
		}
	}
	var written []string
	for _, c := range changes {
		if err := t.writeOne(c); err != nil {
			if len(written) > 0 {
				return "", fmt.Errorf("%s not written (%v); written before it: %s", tools.Printable(c.Path), err, strings.Join(written, ", "))
			}
			return "", fmt.Errorf("%s not written: %v", tools.Printable(c.Path), err)
		}
		written = append(written, tools.Printable(c.Path))
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

// check refuses a change whose path now leaves the workspace (a symlink
// put there since) or whose file changed, or appeared, since the agent read it.
func (t *turn) check(c tools.Change) error {
	abs, _, err := t.ws.Resolve(c.Path)
	if err != nil {
		return err
	}
	if abs != c.AbsPath {
		return fmt.Errorf("%s now resolves to %s", tools.Printable(c.Path), abs)
	}
	current, exists, err := t.current(c.AbsPath)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", tools.Printable(c.Path), err)
	case c.Existed && !exists:
		return fmt.Errorf("%s was deleted while the agent worked", tools.Printable(c.Path))
	case c.Existed && current != c.Original:
		return fmt.Errorf("%s changed while the agent worked", tools.Printable(c.Path))
	case !c.Existed && exists:
		return fmt.Errorf("%s was created while the agent worked", tools.Printable(c.Path))
	}
	return nil
}

// current is the file as the user has it now: the client's buffer, else disk.
func (t *turn) current(abs string) (text string, exists bool, err error) {
	if t.files != nil {
		if text, _, ok := t.files.Buffer(abs); ok {
			return text, true, nil
		}
	}
	data, err := tools.ReadRegular(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, nil
	case err != nil:
		return "", false, err
	}
	return string(data), true, nil
}

func (t *turn) writeOne(c tools.Change) error {
	if t.caps.Fs.WriteTextFile {
		_, err := t.a.conn.WriteTextFile(t.ctx, sdk.WriteTextFileRequest{SessionId: t.s.id, Path: c.AbsPath, Content: c.New})
		return err
	}
	return writeFile(c.AbsPath, c.New)
}

// writeFile writes a file of the workspace. O_NOFOLLOW and O_NONBLOCK: a
// symlink or a FIFO put there since the check fails instead of being
// written through or blocking.
func writeFile(abs, text string) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Lstat(abs); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, mode)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return tools.ErrNotRegular
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		return err
	}
	return f.Close()
}
