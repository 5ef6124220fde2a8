package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/agent-lsp/agent-lsp/tools"
)

// applyToDisk writes a proposal for `ask --apply`. Sensitive files (what
// editors, the agent or CI run or read) are written only when applySensitive
// is set; the others are written all the same, and the ones left out are
// printed to stderr and returned. Every file is checked before any is
// written: a file changed on disk since the agent read it, or created
// meanwhile, refuses the whole apply rather than overwrite it.
func applyToDisk(p tools.Proposal, applySensitive bool, stderr io.Writer) (leftOut []string, err error) {
	var changes []tools.Change
	for _, c := range p.Changes {
		if why, ok := c.Sensitive(); ok && !applySensitive {
			fmt.Fprintf(stderr, "[AGENT] left out %s: it changes %s (--apply-sensitive writes it)\n", tools.Printable(c.Path), why)
			leftOut = append(leftOut, c.Path)
			continue
		}
		if err := checkUnchanged(c); err != nil {
			return nil, err
		}
		changes = append(changes, c)
	}
	for _, c := range changes {
		if err := writeChange(c); err != nil {
			return nil, err
		}
	}
	return leftOut, nil
}

// checkUnchanged refuses a file the user changed or created meanwhile.
func checkUnchanged(c tools.Change) error {
	current, err := tools.ReadRegular(c.AbsPath)
	switch {
	case c.Existed && err != nil:
		return fmt.Errorf("%s: %w", c.Path, err)
	case c.Existed && string(current) != c.Original:
		return fmt.Errorf("%s changed on disk while the agent worked; run again", c.Path)
	case !c.Existed && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s was created while the agent worked; run again", c.Path)
	}
	return nil
}

// writeChange writes one file. O_NOFOLLOW and O_NONBLOCK: a symlink or a
// FIFO put there since the check fails instead of being written through or
// blocking.
func writeChange(c tools.Change) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Lstat(c.AbsPath); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(c.AbsPath), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(c.AbsPath, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, mode)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", c.Path, tools.ErrNotRegular)
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteString(c.New); err != nil {
		return err
	}
	return f.Close()
}
