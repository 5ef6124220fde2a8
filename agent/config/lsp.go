package config

import (
	"maps"
	"slices"

	"github.com/agent-lsp/agent-lsp/tools/langserver"
)

// LSPServer is one language server of [lsp.NAME]: a known server's fields
// overridden (gopls, pyright, basedpyright, typescript-language-server,
// clangd, rust-analyzer), or a new server. Only the user's own file names
// a command: a project's (trusted or not) would be code the repository
// runs, and editors fill their settings from the repository too.
type LSPServer = langserver.Override

// mergeLSP lays over's servers onto base's (langserver.Override.Over);
// base's map is not modified.
func mergeLSP(base, over map[string]LSPServer) map[string]LSPServer {
	if len(over) == 0 {
		return base
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]LSPServer{}
	}
	for name, o := range over {
		out[name] = o.Over(out[name])
	}
	return out
}

func mergeLSPRow(base *Settings, over Settings) { base.LSP = mergeLSP(base.LSP, over.LSP) }

// filterLSP: an untrusted project may only turn a server off.
func filterLSP(_ Setting, _ Settings, s *Settings, warn func(string, ...any)) {
	for _, name := range slices.Sorted(maps.Keys(s.LSP)) {
		l := s.LSP[name]
		if l.Enabled != nil && !*l.Enabled {
			s.LSP[name] = LSPServer{Enabled: l.Enabled}
			if l.Command != "" || len(l.Languages)+len(l.Extensions)+len(l.RootMarkers) > 0 || l.InitializationOptions != nil {
				warn("[lsp.%s]: only enabled = false kept", name)
			}
			continue
		}
		warn("[lsp.%s] ignored: only enabled = false is taken from an untrusted project", name)
		delete(s.LSP, name)
	}
}

// projectLSPCommands removes the commands a project file names: even a
// trusted project does not choose what runs as a language server.
func projectLSPCommands(path string, project *Settings) []string {
	var warnings []string
	for _, name := range slices.Sorted(maps.Keys(project.LSP)) {
		l := project.LSP[name]
		if l.Command != "" || len(l.Args) > 0 {
			warnings = append(warnings, path+": [lsp."+name+"] command and args ignored: only your own config names a language server's command")
			l.Command, l.Args = "", nil
			project.LSP[name] = l
		}
	}
	return warnings
}
