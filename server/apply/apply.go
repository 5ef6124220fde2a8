// Package apply writes accepted changes to the user's files: the one place
// the CLI's `ask --apply` and ACP's turns (when the client does not write
// through its own buffers) do it. It speaks neither LSP nor ACP; the LSP
// surface never writes files (the editor applies its edits).
//
// Invariant: a change is written only if the file is still what the agent
// read — unchanged, not deleted, not created meanwhile, still inside the
// workspace — and never through a symlink, FIFO or device put in its place.
package apply

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Current is the file as the user has it now (their editor's buffer, else
// disk): its text, and whether it exists.
type Current func(abs string) (text string, exists bool, err error)

// OnDisk is Current for a user without an editor: the file on disk. A
// FIFO, device or socket there exists, with no text the agent could have
// read.
func OnDisk(abs string) (string, bool, error) {
	data, err := tools.ReadRegular(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, nil
	case errors.Is(err, tools.ErrNotRegular):
		return "", true, nil
	case err != nil:
		return "", false, err
	}
	return string(data), true, nil
}

// Check refuses a change whose file changed, was deleted or appeared since
// the agent read it, or whose path now leads outside the workspace (ws:
// nil to skip that check).
func Check(ws *tools.Workspace, c tools.Change, current Current) error {
	if ws != nil {
		abs, _, err := ws.Resolve(c.Path)
		if err != nil {
			return err
		}
		if abs != c.AbsPath {
			return fmt.Errorf("%s now resolves to %s", tools.Printable(c.Path), abs)
		}
	}
	text, exists, err := current(c.AbsPath)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", tools.Printable(c.Path), err)
	case c.Existed && !exists:
		return fmt.Errorf("%s was deleted while the agent worked", tools.Printable(c.Path))
	case c.Existed && text != c.Original:
		return fmt.Errorf("%s changed while the agent worked", tools.Printable(c.Path))
	case !c.Existed && exists:
		return fmt.Errorf("%s was created while the agent worked", tools.Printable(c.Path))
	}
	return nil
}

// WriteFile writes text to the workspace file abs, keeping its mode.
// O_NOFOLLOW and O_NONBLOCK: a symlink or a FIFO put there since the check
// fails instead of being written through or blocking.
func WriteFile(abs, text string) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Lstat(abs); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	f, err := openForWrite(abs, mode)
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
