package acp

import (
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// mcpCapabilities says which MCP transports session/new accepts besides
// stdio (which every agent takes).
func mcpCapabilities() sdk.McpCapabilities { return sdk.McpCapabilities{} }

// startMCP starts the client's MCP servers for s and returns what to tell
// the user about them.
func (a *Agent) startMCP(s *session, servers []sdk.McpServer) []string {
	if len(servers) == 0 {
		return nil
	}
	var names []string
	for _, srv := range servers {
		names = append(names, mcpName(srv))
	}
	return []string{"MCP servers from the client are not supported yet, so these were not started: " + strings.Join(names, ", ") + ". The agent works without their tools."}
}

func mcpName(s sdk.McpServer) string {
	switch {
	case s.Stdio != nil:
		return s.Stdio.Name
	case s.Http != nil:
		return s.Http.Name
	case s.Sse != nil:
		return s.Sse.Name
	case s.Acp != nil:
		return s.Acp.Name
	}
	return "(unnamed)"
}
