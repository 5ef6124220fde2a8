package nvim_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/server"
)

// TestPluginNamesOnlyServerCommands: every command the plugin sends
// (execute('agent.…')) or handles (vim.lsp.commands['agent.…']) is one the
// server defines, and the plugin handles the commands the server's code
// actions carry and whose result the user must see or the plugin must
// follow (agent.ask, the proposal commands, agent.cancel), so a renamed
// command fails here rather than in the user's Neovim.
func TestPluginNamesOnlyServerCommands(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("lua", "agent_lsp", "init.lua"))
	if err != nil {
		t.Fatal(err)
	}
	defined := server.CommandNames()
	var named []string
	for _, m := range regexp.MustCompile(`(?:execute\(|vim\.lsp\.commands\[)'([^']*)'`).FindAllStringSubmatch(string(src), -1) {
		named = append(named, m[1])
		if !slices.Contains(defined, m[1]) {
			t.Errorf("init.lua names %s, which the server does not define (%v)", m[1], defined)
		}
	}
	if len(named) < 5 {
		t.Fatalf("init.lua names only %v: is the pattern still right?", named)
	}
	for _, c := range []string{server.CommandAsk, server.CommandApplyProposal, server.CommandDiscardProposal, server.CommandShowProposal, server.CommandCancel} {
		if handler := "vim.lsp.commands['" + c + "']"; !strings.Contains(string(src), handler) {
			t.Errorf("init.lua sets no %s: the code actions' %s would go to Neovim's default", handler, c)
		}
	}
}
