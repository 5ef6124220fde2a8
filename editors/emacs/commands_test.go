package emacs_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/agent-lsp/agent-lsp/server"
)

// TestPackageNamesOnlyServerCommands: every command agent-lsp.el names is one
// the server defines, and the commands it runs itself (agent-lsp--commands)
// include those the server's code actions send for it to handle, so a
// renamed command fails here rather than in the user's Emacs.
func TestPackageNamesOnlyServerCommands(t *testing.T) {
	defined := server.CommandNames()
	for _, c := range packageCommands(t) {
		if !slices.Contains(defined, c) {
			t.Errorf("agent-lsp.el names %s, which the server does not define (%v)", c, defined)
		}
	}
	src, err := os.ReadFile("agent-lsp.el")
	if err != nil {
		t.Fatal(err)
	}
	list := regexp.MustCompile(`(?s)\(defconst agent-lsp--commands\s+'\((.*?)\)\s*\n\s*"`).FindSubmatch(src)
	if list == nil {
		t.Fatal("agent-lsp.el has no (defconst agent-lsp--commands '(…)): is the pattern still right?")
	}
	var handled []string
	for _, m := range regexp.MustCompile(`\("(agent\.[a-zA-Z]+)" \. agent-lsp--[a-z-]+\)`).FindAllSubmatch(list[1], -1) {
		handled = append(handled, string(m[1]))
	}
	for _, c := range []string{server.CommandAsk, server.CommandShowProposal, server.CommandApplyProposal, server.CommandDiscardProposal, server.CommandCancel} {
		if !slices.Contains(handled, c) {
			t.Errorf("agent-lsp--commands lacks %s (it has %v)", c, handled)
		}
	}
}
