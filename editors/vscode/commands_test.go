package vscode_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

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
