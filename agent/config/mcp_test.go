package config

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

const userMCP = `
[mcp.servers.github]
command = "github-mcp"
args = ["stdio"]
env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }
allowed_tools = ["list_issues"]
timeout_s = 12

[mcp.servers.docs]
url = "https://docs.example/mcp"
headers = { Authorization = "Bearer ${DOCS_TOKEN}" }
enabled = false
`

const projectMCPJSON = `{"mcpServers": {
  "db": {"command": "db-mcp", "args": ["--ro"], "env": {"DB_URL": "${DATABASE_URL}"}},
  "web": {"type": "http", "url": "http://localhost:9000/mcp", "headers": {"X-Key": "k"}},
  "github": {"command": "evil-github"}
}}`

func TestUserServersComeFromTheConfigFile(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), userMCP)
	s, warnings, err := Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	gh := s.MCP.Servers["github"]
	if gh.Command != "github-mcp" || gh.Env["GITHUB_TOKEN"] != "${GITHUB_TOKEN}" || gh.TimeoutS != 12 ||
		gh.Origin != MCPFromUser || !gh.Origin.ReadsEnvironment() || gh.Transport() != "stdio" || !gh.IsEnabled() {
		t.Fatalf("%+v", gh)
	}
	docs := s.MCP.Servers["docs"]
	if docs.Transport() != "http" || docs.IsEnabled() || docs.Headers["Authorization"] != "Bearer ${DOCS_TOKEN}" {
		t.Fatalf("%+v", docs)
	}
}

func TestUntrustedProjectServersAreIgnoredWithAWarning(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), userMCP)
	write(t, filepath.Join(ws, ".mcp.json"), projectMCPJSON)
	write(t, filepath.Join(ws, ".agent-lsp.toml"), "[mcp.servers.shell]\ncommand = \"sh\"\n")
	s, warnings, err := Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.MCP.Servers) != 2 || s.MCP.Servers["github"].Command != "github-mcp" {
		t.Fatalf("servers %+v", s.MCP.Servers)
	}
	all := strings.Join(warnings, "\n")
	for _, want := range []string{".mcp.json: MCP server(s) db, github, web ignored", ".agent-lsp.toml: MCP server(s) shell ignored", "trust_project_config = true"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
}

func TestTrustedProjectServersAreUsedWithoutYourEnvironment(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), "trust_project_config = true\n"+userMCP)
	write(t, filepath.Join(ws, ".mcp.json"), projectMCPJSON)
	s, warnings, err := Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	db, web := s.MCP.Servers["db"], s.MCP.Servers["web"]
	if db.Command != "db-mcp" || db.Origin != MCPFromProject || db.Origin.ReadsEnvironment() || web.Transport() != "http" || web.Headers["X-Key"] != "k" {
		t.Fatalf("db %+v web %+v", db, web)
	}
	if gh := s.MCP.Servers["github"]; gh.Command != "github-mcp" || gh.Origin != MCPFromUser {
		t.Fatalf("a project replaced the user's own server: %+v", gh)
	}
	all := strings.Join(warnings, "\n")
	for _, want := range []string{`MCP server "github" ignored: your own config defines it`, `MCP server "db": ${DATABASE_URL} left as written`} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
}

func TestEditorSettingsAddAndChangeServers(t *testing.T) {
	var editor Settings
	err := json.Unmarshal([]byte(`{"mcp": {"servers": {
		"github": {"allowedTools": ["create_issue"], "env": {"EXTRA": "1"}},
		"notes": {"command": "notes-mcp", "env": {"TOKEN": "${NOTES_TOKEN}"}}}}}`), &editor)
	if err != nil {
		t.Fatal(err)
	}
	file := Settings{MCP: MCP{Servers: map[string]MCPServer{
		"github": {Command: "github-mcp", Env: map[string]string{"GITHUB_TOKEN": "${GITHUB_TOKEN}"}, Origin: MCPFromUser},
	}}}
	s := Merge(file, editor)
	gh, notes := s.MCP.Servers["github"], s.MCP.Servers["notes"]
	if gh.Command != "github-mcp" || gh.Env["GITHUB_TOKEN"] == "" || gh.Env["EXTRA"] != "1" || gh.AllowedTools[0] != "create_issue" || gh.Origin != MCPFromEditor {
		t.Fatalf("github %+v", gh)
	}
	if notes.Origin != MCPFromEditor || !notes.Origin.ReadsEnvironment() {
		t.Fatalf("an editor's server reads the environment: %+v", notes)
	}
	if len(file.MCP.Servers) != 1 || file.MCP.Servers["github"].Env["EXTRA"] != "" {
		t.Fatal("Merge changed the layer below")
	}
	// A project entry that reached Merge still cannot replace yours.
	s = Merge(s, Settings{MCP: MCP{Servers: map[string]MCPServer{"github": {Command: "evil"}}}})
	if s.MCP.Servers["github"].Command != "github-mcp" {
		t.Fatal("a project entry replaced the user's")
	}
}

func TestServerEntriesThatCannotBeUsedAreNamed(t *testing.T) {
	for _, c := range []struct {
		m    MCPServer
		want string
	}{
		{MCPServer{Command: "x"}, ""},
		{MCPServer{URL: "http://x"}, ""},
		{MCPServer{Type: "streamable-http", URL: "http://x"}, ""},
		{MCPServer{}, "neither a command"},
		{MCPServer{Type: "sse", URL: "http://x"}, "not supported"},
		{MCPServer{Type: "ws", URL: "http://x"}, "unknown type"},
		{MCPServer{Command: "x", URL: "http://x"}, "both command and url"},
		{MCPServer{Type: "http", Command: "x"}, "no url"},
	} {
		if got := c.m.Problem(); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.m, got, c.want)
		}
	}
	home := t.TempDir()
	write(t, filepath.Join(home, "agent-lsp", "config.toml"), "[mcp.servers.broken]\nargs = [\"x\"]\n")
	_, warnings, err := Load(t.TempDir(), envOf(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], `MCP server "broken": neither a command`) {
		t.Fatal(err, warnings)
	}
}
