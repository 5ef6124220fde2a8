package vscode_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/server"
)

// TestExtensionNamesOnlyServerCommands: every agent.* command the extension's
// sources name as a string ('agent.…': sent, intercepted in the middleware,
// or given feedback for) is one the server defines, and the middleware
// intercepts agent.ask and agent.applyProposal, so a renamed command fails
// here rather than in the user's VS Code.
func TestExtensionNamesOnlyServerCommands(t *testing.T) {
	defined := server.CommandNames()
	files, err := filepath.Glob(filepath.Join("src", "*.ts"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources in src/ (%v)", err)
	}
	quoted := regexp.MustCompile(`'(agent\.[a-zA-Z]+)'`)
	var named []string
	var all strings.Builder
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(src)
		for _, m := range quoted.FindAllStringSubmatch(string(src), -1) {
			named = append(named, m[1])
			if !slices.Contains(defined, m[1]) {
				t.Errorf("%s names %s, which the server does not define (%v)", file, m[1], defined)
			}
		}
	}
	if len(named) < 5 {
		t.Fatalf("src/*.ts name only %v: is the pattern still right?", named)
	}
	for _, c := range []string{server.CommandAsk, server.CommandApplyProposal} {
		if intercept := "command === '" + c + "'"; !strings.Contains(all.String(), intercept) {
			t.Errorf("the middleware has no %s", intercept)
		}
	}
}

// TestManifestDefaultsAreTheServers: a default the manifest states in a
// setting's description ("(default 75)") is the server's, which the
// settings table declares: the JSON cannot refer to it, so it is checked.
func TestManifestDefaultsAreTheServers(t *testing.T) {
	data, err := os.ReadFile("package.json")
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]struct {
					Properties map[string]struct {
						Description string `json:"description"`
					} `json:"properties"`
				} `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(data, &manifest); err != nil {
		t.Fatal(err)
	}
	props := manifest.Contributes.Configuration.Properties
	for _, c := range []struct {
		setting, field string
		want           int64
	}{
		{"agent-lsp.completion", "debounceMs", config.DefaultCompletionDebounce.Milliseconds()},
		{"agent-lsp.completion", "maxLines", int64(config.DefaultCompletionMaxLines)},
		{"agent-lsp.nes", "debounceMs", config.DefaultNESDebounce.Milliseconds()},
	} {
		desc := props[c.setting].Properties[c.field].Description
		if want := fmt.Sprintf("(default %d)", c.want); !strings.Contains(desc, want) {
			t.Errorf("%s.%s says %q; the server's default is %d", c.setting, c.field, desc, c.want)
		}
	}
}
