package main

import (
	"fmt"
	"io"

	"github.com/agent-lsp/agent-lsp/server/apply"
	"github.com/agent-lsp/agent-lsp/tools"
)

// applyToDisk writes a proposal for `ask --apply`. Sensitive files (what
// editors, the agent or CI run or read) are written only when applySensitive
// is set; the others are written all the same, and the ones left out are
// printed to stderr and returned. Every file is checked before any is
// written: a file changed on disk since the agent read it, or created
// meanwhile, refuses the whole apply rather than overwrite it.
func applyToDisk(p tools.Proposal, applySensitive bool, stderr io.Writer) (leftOut []string, err error) {
	accepted, left := apply.Split(p.Changes, applySensitive)
	for _, c := range left {
		why, _ := c.Sensitive()
		fmt.Fprintf(stderr, "[AGENT] left out %s: it changes %s (--apply-sensitive writes it)\n", tools.Printable(c.Path), why)
		leftOut = append(leftOut, c.Path)
	}
	if _, err := apply.Write(nil, accepted, apply.OnDisk, apply.ToDisk); err != nil {
		return nil, fmt.Errorf("%w; run again", err)
	}
	return leftOut, nil
}
