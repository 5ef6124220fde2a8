package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// MCP lists the Model Context Protocol servers whose tools the agent may
// use: [mcp.servers.NAME] in the config files, "mcp": {"servers": {…}} in
// LSP settings, and a trusted project's .mcp.json.
type MCP struct {
	Servers map[string]MCPServer `toml:"servers" json:"servers,omitempty"`
}

// MCPServer is one MCP server: a command spoken to over stdio, or a
// Streamable HTTP endpoint.
type MCPServer struct {
	// Type is "stdio" or "http" ("streamable-http" and "streamableHttp"
	// too); empty means stdio with a command, http with a url.
	Type    string            `toml:"type" json:"type,omitempty"`
	Command string            `toml:"command" json:"command,omitempty"`
	Args    []string          `toml:"args" json:"args,omitempty"`
	Env     map[string]string `toml:"env" json:"env,omitempty"`
	// Cwd is where the command starts (default: the workspace root).
	Cwd     string            `toml:"cwd" json:"cwd,omitempty"`
	URL     string            `toml:"url" json:"url,omitempty"`
	Headers map[string]string `toml:"headers" json:"headers,omitempty"`
	// Enabled = false keeps the server configured but unused.
	Enabled *bool `toml:"enabled" json:"enabled,omitempty"`
	// TimeoutS bounds the start (connect, initialize, list the tools) and
	// each call without an answer (default: mcp.DefaultTimeout).
	TimeoutS int `toml:"timeout_s" json:"timeoutS,omitempty"`
	// AllowedTools run without asking; every other call asks, Deny first.
	// A name is the server's own or the mcp__SERVER__TOOL one.
	AllowedTools []string `toml:"allowed_tools" json:"allowedTools,omitempty"`
	// DisabledTools are never offered to the model.
	DisabledTools []string `toml:"disabled_tools" json:"disabledTools,omitempty"`
	// Origin is where the server was configured. No file sets it: the
	// loader does, and JSON (LSP settings) decodes as MCPFromEditor.
	Origin MCPOrigin `toml:"-" json:"-"`
}

// MCPOrigin says which layer configured a server, and so what it may do.
type MCPOrigin int

const (
	// MCPFromProject (the zero value, the least trusted): .mcp.json or
	// .agent-lsp.toml, used only when the user's config trusts the project,
	// and even then never reading the user's environment (${VAR} stays as
	// written): a cloned repository must not get the user's secrets.
	MCPFromProject MCPOrigin = iota
	// MCPFromUser: the user's own config file.
	MCPFromUser
	// MCPFromEditor: initializationOptions or didChangeConfiguration. Some
	// editors fill these from the repository unasked (eglot's
	// workspace configuration from .dir-locals.el), so such a server is
	// asked about before it first starts.
	MCPFromEditor
	// MCPFromClient: an ACP client's session/new, which the client puts
	// together from its own settings and hands over explicitly.
	MCPFromClient
)

func (o MCPOrigin) String() string {
	switch o {
	case MCPFromUser:
		return "user"
	case MCPFromEditor:
		return "editor"
	case MCPFromClient:
		return "client"
	}
	return "project"
}

// ReadsEnvironment says whether ${VAR} in the server's command, args, env,
// cwd, url and headers is taken from the user's environment.
func (o MCPOrigin) ReadsEnvironment() bool { return o != MCPFromProject }

// UnmarshalJSON decodes a server from LSP settings, the one place Settings
// are read as JSON: it comes from the editor. (.mcp.json is read apart.)
func (m *MCPServer) UnmarshalJSON(data []byte) error {
	type plain MCPServer
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*m = MCPServer(p)
	m.Origin = MCPFromEditor
	return nil
}

// IsEnabled is false only for enabled = false.
func (m MCPServer) IsEnabled() bool { return m.Enabled == nil || *m.Enabled }

// Transport is "stdio" or "http", or "" when the entry names neither (see
// Problem).
func (m MCPServer) Transport() string {
	switch strings.ToLower(m.Type) {
	case "stdio":
		return "stdio"
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		return "http"
	case "":
		switch {
		case m.Command != "" && m.URL == "":
			return "stdio"
		case m.URL != "" && m.Command == "":
			return "http"
		}
	}
	return ""
}

// Problem says what keeps the entry from being used, or "".
func (m MCPServer) Problem() string {
	switch t := strings.ToLower(m.Type); {
	case t == "sse":
		return `type "sse" (the old HTTP+SSE transport) is not supported: give the server's Streamable HTTP url with type = "http"`
	case m.Transport() == "" && m.Type != "":
		return fmt.Sprintf("unknown type %q: use stdio (a command) or http (a url)", m.Type)
	case m.Command != "" && m.URL != "" && m.Type == "":
		return "both command and url: say type = \"stdio\" or \"http\""
	case m.Transport() == "stdio" && m.Command == "":
		return "no command to start"
	case m.Transport() == "http" && m.URL == "":
		return "no url"
	case m.Transport() == "":
		return "neither a command (stdio) nor a url (Streamable HTTP)"
	}
	return ""
}

// mergeMCP lays over's servers onto base's: a later layer changes the
// fields it sets (maps key by key), except that a project entry never
// replaces one from the user or the editor. base's map is not modified.
func mergeMCP(base, over MCP) MCP {
	if len(over.Servers) == 0 {
		return base
	}
	servers := maps.Clone(base.Servers)
	if servers == nil {
		servers = map[string]MCPServer{}
	}
	for name, o := range over.Servers {
		cur, ok := servers[name]
		switch {
		case !ok:
			servers[name] = o
		case o.Origin == MCPFromProject && cur.Origin != MCPFromProject:
			// Your own definition stands (Load warns).
		default:
			servers[name] = overlayMCP(cur, o)
		}
	}
	return MCP{Servers: servers}
}

func overlayMCP(cur, o MCPServer) MCPServer {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&cur.Type, o.Type)
	set(&cur.Command, o.Command)
	set(&cur.Cwd, o.Cwd)
	set(&cur.URL, o.URL)
	if o.Args != nil {
		cur.Args = o.Args
	}
	cur.Env = mergeMap(cur.Env, o.Env)
	cur.Headers = mergeMap(cur.Headers, o.Headers)
	if o.Enabled != nil {
		cur.Enabled = o.Enabled
	}
	if o.TimeoutS > 0 {
		cur.TimeoutS = o.TimeoutS
	}
	if o.AllowedTools != nil {
		cur.AllowedTools = o.AllowedTools
	}
	if o.DisabledTools != nil {
		cur.DisabledTools = o.DisabledTools
	}
	cur.Origin = o.Origin
	return cur
}

func mergeMap(base, over map[string]string) map[string]string {
	if len(over) == 0 {
		return base
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, over)
	return out
}

// mcpJSONName is the de-facto project file of MCP clients (Claude Code,
// Cursor, …).
const mcpJSONName = ".mcp.json"

// readMCPJSON reads {"mcpServers": {NAME: {command, args, env} | {type, url,
// headers}}} from the workspace root, as readProjectFile reads it; nil when
// there is none, or with a warning when it was refused. It is read even for
// an untrusted project, to name the servers that are ignored.
func readMCPJSON(workspace string) (servers map[string]MCPServer, path, warning string, err error) {
	path = filepath.Join(workspace, mcpJSONName)
	data, found, warning := readProjectFile(workspace, mcpJSONName, "its MCP servers are left out")
	if !found {
		return nil, path, warning, nil
	}
	// Its own shape, not MCPServer's JSON: that one means LSP settings.
	var file struct {
		MCPServers map[string]struct {
			Type          string            `json:"type"`
			Command       string            `json:"command"`
			Args          []string          `json:"args"`
			Env           map[string]string `json:"env"`
			Cwd           string            `json:"cwd"`
			URL           string            `json:"url"`
			Headers       map[string]string `json:"headers"`
			Enabled       *bool             `json:"enabled"`
			TimeoutS      int               `json:"timeout_s"`
			AllowedTools  []string          `json:"allowed_tools"`
			DisabledTools []string          `json:"disabled_tools"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, path, "", fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]MCPServer{}
	for name, s := range file.MCPServers {
		out[name] = MCPServer{
			Type: s.Type, Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd, URL: s.URL, Headers: s.Headers,
			Enabled: s.Enabled, TimeoutS: s.TimeoutS, AllowedTools: s.AllowedTools, DisabledTools: s.DisabledTools,
			Origin: MCPFromProject,
		}
	}
	return out, path, "", nil
}

// loadProjectMCP adds the project's servers (.agent-lsp.toml's, already in
// project, and .mcp.json's) when the user trusts the project, and says what
// it ignored: every one of them when it does not, and, when it does, any
// that would replace one of the user's own or read the user's environment.
func loadProjectMCP(workspace string, user Settings, project *Settings, projectPath string) ([]string, error) {
	fromJSON, jsonPath, warning, err := readMCPJSON(workspace)
	if err != nil {
		return nil, err
	}
	var warnings []string
	if warning != "" {
		warnings = append(warnings, warning)
	}
	sources := []struct {
		path    string
		servers map[string]MCPServer
	}{{projectPath, project.MCP.Servers}, {jsonPath, fromJSON}}
	merged := map[string]MCPServer{}
	for _, src := range sources {
		if len(src.servers) == 0 {
			continue
		}
		names := slices.Sorted(maps.Keys(src.servers))
		if !user.TrustProjectConfig {
			warnings = append(warnings, fmt.Sprintf("%s: MCP server(s) %s ignored: they would start programs or reach servers of the project's choosing %s",
				src.path, strings.Join(names, ", "), trustHint))
			continue
		}
		for _, name := range names {
			s := src.servers[name]
			s.Origin = MCPFromProject
			if own, ok := user.MCP.Servers[name]; ok && own.Origin != MCPFromProject {
				warnings = append(warnings, fmt.Sprintf("%s: MCP server %q ignored: your own config defines it", src.path, name))
				continue
			}
			if refs := envReferences(s); len(refs) > 0 {
				warnings = append(warnings, fmt.Sprintf("%s: MCP server %q: %s left as written: a project file may not read your environment (define the server in your own config to pass secrets)",
					src.path, name, strings.Join(refs, ", ")))
			}
			merged[name] = s
		}
	}
	project.MCP = MCP{Servers: merged}
	return warnings, nil
}

// envReferences lists the ${VAR} references of a server's entry.
func envReferences(s MCPServer) []string {
	var refs []string
	add := func(v string) {
		for rest := v; ; {
			i := strings.Index(rest, "${")
			if i < 0 {
				return
			}
			j := strings.IndexByte(rest[i:], '}')
			if j < 0 {
				return
			}
			if ref := rest[i : i+j+1]; !slices.Contains(refs, ref) {
				refs = append(refs, ref)
			}
			rest = rest[i+j+1:]
		}
	}
	add(s.Command)
	add(s.Cwd)
	add(s.URL)
	for _, a := range s.Args {
		add(a)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		add(s.Env[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		add(s.Headers[k])
	}
	return refs
}

// mcpWarnings names the servers that cannot be used as configured.
func mcpWarnings(m MCP) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(m.Servers)) {
		if p := m.Servers[name].Problem(); p != "" && m.Servers[name].IsEnabled() {
			out = append(out, fmt.Sprintf("MCP server %q: %s", name, p))
		}
	}
	return out
}
