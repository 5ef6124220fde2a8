package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLanguageServerCommandsOnlyFromTheUsersFile: the user's [lsp.NAME]
// names a command; a trusted project sets the rest but never a command;
// an untrusted one may only turn a server off.
func TestLanguageServerCommandsOnlyFromTheUsersFile(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	user := filepath.Join(home, "agent-lsp", "config.toml")
	write(t, user, `
[lsp.gopls]
command = "/opt/gopls"
args = ["-remote=auto"]

[lsp.zig]
command = "zls"
languages = ["zig"]
extensions = { ".zig" = "zig" }
`)
	write(t, filepath.Join(ws, ".agent-lsp.toml"), `
[lsp.gopls]
command = "./evil.sh"
root_markers = ["go.work"]
initialization_options = { staticcheck = true }

[lsp.clangd]
enabled = false

[lsp.pyright]
command = "./evil.sh"
`)
	env := envOf(map[string]string{"XDG_CONFIG_HOME": home})
	s, warnings, err := Load(ws, env)
	if err != nil {
		t.Fatal(err)
	}
	if g := s.LSP["gopls"]; g.Command != "/opt/gopls" || g.RootMarkers != nil {
		t.Errorf("untrusted: gopls %+v", g)
	}
	if _, ok := s.LSP["pyright"]; ok || s.LSP["clangd"].IsEnabled() || s.LSP["zig"].Command != "zls" {
		t.Errorf("untrusted: %+v", s.LSP)
	}
	if !strings.Contains(strings.Join(warnings, "\n"), "[lsp.gopls] ignored") {
		t.Errorf("warnings: %q", warnings)
	}

	write(t, user, "trust_project_config = true\n[lsp.gopls]\ncommand = \"/opt/gopls\"\n")
	s, warnings, err = Load(ws, env)
	if err != nil {
		t.Fatal(err)
	}
	g := s.LSP["gopls"]
	if g.Command != "/opt/gopls" || strings.Join(g.RootMarkers, ",") != "go.work" || g.InitializationOptions["staticcheck"] != true {
		t.Errorf("trusted: gopls %+v", g)
	}
	if p := s.LSP["pyright"]; p.Command != "" {
		t.Errorf("a trusted project named pyright's command: %+v", p)
	}
	if !strings.Contains(strings.Join(warnings, "\n"), "[lsp.pyright] command and args ignored") {
		t.Errorf("warnings: %q", warnings)
	}
}
