package langserver_test

import (
	"reflect"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/langserver"
)

// TestOverridesLayByOneRule: a config file over another, then the result
// over the known servers, follow the one rule (Override.Over): a field set
// replaces, one left empty keeps; a command brings its arguments; a new
// name adds a server whose languages give its extensions.
func TestOverridesLayByOneRule(t *testing.T) {
	off := false
	user := langserver.Override{Command: "/opt/gopls", Args: []string{"-remote=auto"}, InitializationOptions: map[string]any{"staticcheck": true}}
	project := langserver.Override{RootMarkers: []string{"WORKSPACE"}}
	gopls := project.Over(user)
	servers := langserver.WithOverrides(langserver.KnownServers(), map[string]langserver.Override{
		"gopls": gopls, "clangd": {Enabled: &off}, "pyls": {Command: "pylsp", Languages: []string{"python"}},
	})
	by := map[string]langserver.ServerConfig{}
	for _, s := range servers {
		by[s.Name] = s
	}
	g := by["gopls"]
	if g.Command != "/opt/gopls" || !reflect.DeepEqual(g.Args, []string{"-remote=auto"}) || !reflect.DeepEqual(g.RootMarkers, []string{"WORKSPACE"}) ||
		g.InitializationOptions["staticcheck"] != true || g.Extensions[".go"] != "go" || g.Loaded != langserver.LoadedByGoplsPackages || g.Disabled {
		t.Errorf("gopls: %+v", g)
	}
	if !by["clangd"].Disabled || by["clangd"].Command != "clangd" {
		t.Errorf("clangd: %+v", by["clangd"])
	}
	if p := by["pyls"]; p.Command != "pylsp" || p.Extensions[".py"] != "python" || p.Disabled {
		t.Errorf("a new server: %+v", p)
	}
	if again := (langserver.Override{Args: []string{"x"}}).Over(user); again.Command != "/opt/gopls" || !reflect.DeepEqual(again.Args, user.Args) {
		t.Errorf("arguments without a command replaced the command's: %+v", again)
	}
}
