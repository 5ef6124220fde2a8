// Package apply is what every surface does with a proposal the user
// accepts, in one place: which changes are accepted (sensitive files only
// when asked for, Split), how they are described, and writing them to the
// user's files (the CLI's `ask --apply`, and ACP's turns when the client
// does not write through its own buffers). It speaks neither LSP nor ACP;
// the LSP surface never writes files (the editor applies its edits).
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
	"strings"

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

// Split is what the user accepts of changes: every change, or, unless
// withSensitive, all but the sensitive files (what editors, the agent or
// CI run or read), which are left out — the one rule the CLI, the editor
// and ACP all follow.
func Split(changes []tools.Change, withSensitive bool) (accepted, leftOut []tools.Change) {
	for _, c := range changes {
		if _, ok := c.Sensitive(); ok && !withSensitive {
			leftOut = append(leftOut, c)
			continue
		}
		accepted = append(accepted, c)
	}
	return accepted, leftOut
}

// DescribeSensitive lists sensitive changes with why each one is. Paths
// come from the model: escaped, so a newline cannot forge the rest of a
// question.
func DescribeSensitive(changes []tools.Change) string {
	var parts []string
	for _, c := range changes {
		why, _ := c.Sensitive()
		parts = append(parts, fmt.Sprintf("%s (%s)", tools.Printable(c.Path), why))
	}
	return strings.Join(parts, ", ")
}

// ErrNothingWritten is wrapped when a check refused the changes before
// any was written.
var ErrNothingWritten = errors.New("nothing was written")

// Write checks every change (Check) before it writes any, then writes each
// with write. A failure names what was written before it; written is the
// changed files' paths, escaped for display.
func Write(ws *tools.Workspace, changes []tools.Change, current Current, write func(tools.Change) error) (written []string, err error) {
	for _, c := range changes {
		if err := Check(ws, c, current); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNothingWritten, err)
		}
	}
	for _, c := range changes {
		if err := write(c); err != nil {
			if len(written) > 0 {
				return written, fmt.Errorf("%s not written (%v); written before it: %s", tools.Printable(c.Path), err, strings.Join(written, ", "))
			}
			return nil, fmt.Errorf("%s not written: %v", tools.Printable(c.Path), err)
		}
		written = append(written, tools.Printable(c.Path))
	}
	return written, nil
}

// ToDisk is Write's writer for a user without an editor that writes.
func ToDisk(c tools.Change) error { return WriteFile(c.AbsPath, c.New) }
