package acp

import (
	"fmt"
	"maps"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent/config"
)

// mcpCapabilities says which MCP transports session/new accepts besides
// stdio: Streamable HTTP (what the protocol calls http). The old HTTP+SSE
// transport and MCP over ACP are not.
func mcpCapabilities() sdk.McpCapabilities { return sdk.McpCapabilities{Http: true} }

// withClientMCP adds the client's MCP servers to the session's settings,
// as servers the editor configured (as LSP settings are): they start when
// the first turn asks for tools, in the connection's pool, and every call
// to their tools asks first, Deny first. A name the user's config also
// uses is the client's for this session. It returns what to tell the user.
func withClientMCP(s config.Settings, servers []sdk.McpServer) (config.Settings, []string) {
	if len(servers) == 0 {
		return s, nil
	}
	s.MCP.Servers = maps.Clone(s.MCP.Servers)
	if s.MCP.Servers == nil {
		s.MCP.Servers = map[string]config.MCPServer{}
	}
	var used, left []string
	for _, srv := range servers {
		name, m, why := clientServer(srv)
		if why != "" {
			left = append(left, fmt.Sprintf("%s (%s)", name, why))
			continue
		}
		s.MCP.Servers[name] = m
		used = append(used, fmt.Sprintf("%s (%s)", name, m.Transport()))
	}
	var notices []string
	if len(used) > 0 {
		notices = append(notices, "MCP servers from the client: "+strings.Join(used, ", ")+
			". They start now; each call to their tools asks you first.")
	}
	if len(left) > 0 {
		notices = append(notices, "MCP servers from the client left out: "+strings.Join(left, "; ")+".")
	}
	return s, notices
}

// clientServer is one of the client's servers as a configured one, or why
// it cannot be used.
func clientServer(s sdk.McpServer) (name string, m config.MCPServer, why string) {
	m.Origin = config.MCPFromClient
	switch {
	case s.Stdio != nil:
		name, m.Type, m.Command, m.Args = s.Stdio.Name, "stdio", s.Stdio.Command, s.Stdio.Args
		if len(s.Stdio.Env) > 0 {
			m.Env = map[string]string{}
			for _, e := range s.Stdio.Env {
				m.Env[e.Name] = e.Value
			}
		}
	case s.Http != nil:
		name, m.Type, m.URL = s.Http.Name, "http", s.Http.Url
		m.Headers = headers(s.Http.Headers)
	case s.Sse != nil:
		return s.Sse.Name, m, "the old HTTP+SSE transport is not supported; give its Streamable HTTP url"
	case s.Acp != nil:
		return s.Acp.Name, m, "MCP over ACP is not supported"
	default:
		return "(unnamed)", m, "no transport"
	}
	if name == "" {
		return "(unnamed)", m, "no name"
	}
	if p := m.Problem(); p != "" {
		return name, m, p
	}
	return name, m, ""
}

func headers(hs []sdk.HttpHeader) map[string]string {
	if len(hs) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}
