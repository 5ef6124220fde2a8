//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A repository's .agent-lsp.toml and .mcp.json are read as every project
// file is (tools/projectfile). Each file is planted the ways a repository
// can, under a user who trusts the project, so that whatever is read takes
// effect; the control is the same content as a regular file, which does.

const (
	plantedTOML = "max_iterations = 2\n[mcp.servers.planted]\ncommand = \"planted-toml\"\n"
	plantedJSON = `{"mcpServers": {"planted": {"command": "planted-json"}}}`
)

// loadPromptly is Load, failing the test as a hang if it waits (on a FIFO):
// a watchdog, not a measure of speed.
func loadPromptly(t *testing.T, ws string, env Env) (Settings, []string, error) {
	t.Helper()
	type loaded struct {
		s        Settings
		warnings []string
		err      error
	}
	done := make(chan loaded, 1)
	go func() {
		s, w, err := Load(ws, env)
		done <- loaded{s, w, err}
	}()
	select {
	case l := <-done:
		return l.s, l.warnings, l.err
	case <-time.After(time.Minute):
		t.Fatal("Load hung")
	}
	panic("unreachable")
}

func TestAProjectFileThatIsNotARegularFileInsideIsIgnoredWithAWarning(t *testing.T) {
	for _, file := range []struct{ name, content, command string }{
		{".agent-lsp.toml", plantedTOML, "planted-toml"},
		{".mcp.json", plantedJSON, "planted-json"},
	} {
		for _, c := range []struct {
			name  string
			plant func(t *testing.T, path, outside string)
			why   string
		}{
			{"a link out of the workspace", func(t *testing.T, path, outside string) {
				if err := os.Symlink(outside, path); err != nil {
					t.Fatal(err)
				}
			}, "a link leads outside the root"},
			{"a relative link climbing out", func(t *testing.T, path, outside string) {
				rel, err := filepath.Rel(filepath.Dir(path), outside)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(rel, path); err != nil {
					t.Fatal(err)
				}
			}, "a link leads outside the root"},
			{"a link to /dev/zero", func(t *testing.T, path, _ string) {
				if err := os.Symlink("/dev/zero", path); err != nil {
					t.Fatal(err)
				}
			}, "a link leads outside the root"},
			{"a FIFO", func(t *testing.T, path, _ string) {
				if err := syscall.Mkfifo(path, 0o644); err != nil {
					t.Fatal(err)
				}
			}, "not a regular file (a named pipe)"},
			{"over the cap", func(t *testing.T, path, outside string) {
				pad := "\n# " + strings.Repeat("x", maxProjectFileBytes) + "\n"
				if strings.HasSuffix(path, ".json") {
					pad = strings.Repeat(" ", maxProjectFileBytes)
				}
				write(t, path, file.content+pad)
			}, "too large"},
		} {
			t.Run(file.name+"/"+c.name, func(t *testing.T) {
				home, ws, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
				write(t, filepath.Join(home, "agent-lsp", "config.toml"), "trust_project_config = true\nmodel = \"user-model\"\n"+userMCP)
				outside := filepath.Join(elsewhere, "planted")
				write(t, outside, file.content)
				path := filepath.Join(ws, file.name)
				c.plant(t, path, outside)
				s, warnings, err := loadPromptly(t, ws, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := s.MCP.Servers["planted"]; ok || s.MaxIterations == 2 {
					t.Errorf("the planted file was read: %+v", s)
				}
				if s.Model != "user-model" || s.MCP.Servers["github"].Command != "github-mcp" {
					t.Errorf("the user's config was lost: %+v", s)
				}
				want := path + ": " + c.why
				if len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) || !strings.Contains(warnings[0], "ignored") {
					t.Errorf("warnings %q, want one starting %q", warnings, want)
				}
			})
		}
		t.Run(file.name+"/control", func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			write(t, filepath.Join(home, "agent-lsp", "config.toml"), "trust_project_config = true\nmodel = \"user-model\"\n")
			write(t, filepath.Join(ws, file.name), file.content)
			s, warnings, err := Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
			if err != nil || len(warnings) != 0 || s.MCP.Servers["planted"].Command != file.command {
				t.Fatalf("a regular %s was not read: %v %q %+v", file.name, err, warnings, s.MCP.Servers)
			}
		})
	}
}

// TestTheUsersOwnConfigIsFollowedIfALink: the user's config.toml is the
// user's (dotfile managers link it), read as before.
func TestTheUsersOwnConfigIsFollowedIfALink(t *testing.T) {
	home, dotfiles, ws := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(dotfiles, "agent-lsp.toml"), "model = \"from-dotfiles\"\n")
	os.MkdirAll(filepath.Join(home, "agent-lsp"), 0o755)
	if err := os.Symlink(filepath.Join(dotfiles, "agent-lsp.toml"), filepath.Join(home, "agent-lsp", "config.toml")); err != nil {
		t.Fatal(err)
	}
	s, warnings, err := Load(ws, envOf(map[string]string{"XDG_CONFIG_HOME": home}))
	if err != nil || len(warnings) != 0 || s.Model != "from-dotfiles" {
		t.Fatalf("%v %q %+v", err, warnings, s)
	}
}
