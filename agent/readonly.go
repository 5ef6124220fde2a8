package agent

// ReadOnly returns a copy of a that offers the model only its read-only
// tools (reads, listings, searches, read-only sub-agents): no writes, no
// commands, no notes. For a question that must change nothing, such as a
// client's "ask" mode. Its tool source (MCP servers) is cut down the
// same way: read-only-hinted tools only, still asking before each call.
// a itself is unchanged.
func (a *Agent) ReadOnly() *Agent {
	return New(a.cfg.readOnly())
}
