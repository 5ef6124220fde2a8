package agent

import "github.com/agent-lsp/agent-lsp/tools"

// ReadOnly returns a copy of a that offers the model only its read-only
// tools (reads, listings, searches, read-only sub-agents): no writes, no
// commands, no notes. For a question that must change nothing, such as a
// client's "ask" mode. a itself is unchanged.
func (a *Agent) ReadOnly() *Agent {
	cfg := a.cfg
	cfg.Tools = cfg.Tools.Subset(func(t tools.Tool) bool { return t.ReadOnly() })
	return New(cfg)
}
