package acp

import (
	"github.com/agent-lsp/agent-lsp/server/fileuri"
	"github.com/agent-lsp/agent-lsp/tools"
)

// resolveFile resolves a file URI a client sent (a resource link) to the
// workspace path it names on this system (fileuri), confined to view.
func resolveFile(view *tools.Workspace, u string) (abs, rel string, err error) {
	p, err := fileuri.ParsePath(u)
	if err != nil {
		return "", "", err
	}
	return view.Resolve(p)
}
