package server

import (
	"testing"

	"go.lsp.dev/protocol"
)

// TestWhichClientsReorderTheirChanges: Helix before 25.07 by its
// clientInfo.version, a Helix without a readable one too; no other client.
func TestWhichClientsReorderTheirChanges(t *testing.T) {
	for _, c := range []struct {
		name, version string
		reorders      bool
	}{
		{"helix", "25.01.1", true}, {"helix", "24.07 (a1b2c3d4)", true}, {"helix", "", true}, {"helix", "master", true},
		{"helix", "25.07", false}, {"helix", "25.07.1 (a1b2c3d4)", false}, {"helix", "26.01", false},
		{"Neovim", "0.10.4", false}, {"Visual Studio Code", "1.99.0", false},
	} {
		info := protocol.ClientInfo{Name: c.name}
		if c.version != "" {
			info.Version = protocol.NewOptional(c.version)
		}
		if got := reordersChanges(info); got != c.reorders {
			t.Errorf("%s %q: reorders %v, want %v", c.name, c.version, got, c.reorders)
		}
	}
}
