package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agent-lsp/agent-lsp/tools"
)

// applyToDisk writes a proposal for `ask --apply`. Every file is checked
// before any is written: a file changed on disk since the agent read it, or
// created meanwhile, refuses the whole apply rather than overwrite it.
func applyToDisk(p tools.Proposal) error {
	for _, c := range p.Changes {
		current, err := os.ReadFile(c.AbsPath)
		switch {
		case c.Existed && err != nil:
			return fmt.Errorf("%s: %w", c.Path, err)
		case c.Existed && string(current) != c.Original:
			return fmt.Errorf("%s changed on disk while the agent worked; run again", c.Path)
		case !c.Existed && err == nil:
			return fmt.Errorf("%s was created while the agent worked; run again", c.Path)
		}
	}
	for _, c := range p.Changes {
		if c.Deleted {
			if err := os.Remove(c.AbsPath); err != nil {
				return err
			}
			continue
		}
		mode := os.FileMode(0o644)
		if fi, err := os.Stat(c.AbsPath); err == nil {
			mode = fi.Mode().Perm()
		}
		if err := os.MkdirAll(filepath.Dir(c.AbsPath), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(c.AbsPath, []byte(c.New), mode); err != nil {
			return err
		}
	}
	return nil
}
