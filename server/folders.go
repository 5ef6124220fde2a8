package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/server/documents"
	"github.com/agent-lsp/agent-lsp/tools"
)

// folder is one workspace folder the client reported: a root of every
// run's view (tools/roots.go has how paths name it), with what is its own
// — its project settings (.agent-lsp.toml, under the trust rules), its
// notes, and its command policy (the allowlist those settings give, and
// what the user allowed for good there). A run started from a file uses
// the folder of that file. Its fields are set before it is listed
// (setFoldersLocked, under workspaceConfig.mu) and never change after.
type folder struct {
	name     string  // the first element of its paths when there are several; kept while the server runs
	dir      string  // absolute, links resolved
	uri      uri.URI // as the client sent it, so that its removal finds it
	settings config.Settings
	memory   *agent.Memory
	policy   *tools.Policy
}

// load reads what dir has of its own; warnings say what its settings
// ignored. dir "" is no folder: the user's settings alone.
func (w *workspaceConfig) load(dir string, u uri.URI) (*folder, []string) {
	settings, warnings, err := config.Load(dir, w.env)
	if err != nil {
		// A broken config file must not keep the editor from starting us;
		// runs report it when they start.
		warnings = append(warnings, err.Error())
	}
	return &folder{dir: dir, uri: u, settings: settings, memory: agent.NewMemory(agent.StateDir(w.env, dir))}, warnings
}

// setFoldersLocked makes folders the workspace's, naming new ones and
// giving them their policy, and makes the first (or noFolder, with none)
// the primary: the one the server's own settings, notes and status are
// of, and where a run asked without a file starts.
func (w *workspaceConfig) setFoldersLocked(folders []*folder) {
	var names []string
	for _, f := range folders {
		if f.name != "" {
			names = append(names, f.name)
		}
	}
	for _, f := range folders {
		if f.name == "" {
			f.name = tools.RootName(f.dir, names)
			names = append(names, f.name)
		}
	}
	for _, f := range append(slices.Clone(folders), w.noFolder) {
		if f.policy == nil {
			f.policy = agentrun.Policy(w.folderSettingsLocked(f))
		}
	}
	w.folders = folders
	primary := w.noFolder
	if len(folders) > 0 {
		primary = folders[0]
	}
	w.root, w.fileSettings, w.memory = primary.dir, primary.settings, primary.memory
}

// folderFor is the innermost folder that holds the file p (absolute,
// links resolved), or nil.
func folderFor(folders []*folder, p string) *folder {
	var in *folder
	for _, f := range folders {
		rel, err := filepath.Rel(f.dir, p)
		if err == nil && (rel == "." || filepath.IsLocal(rel)) && (in == nil || len(f.dir) > len(in.dir)) {
			in = f
		}
	}
	return in
}

// shownPath is how a file is named to a model outside a run (completion's
// neighbours): relative to its folder, the folder's name first when there
// are several; absolute outside every folder.
func (w *workspaceConfig) shownPath(p string) string {
	folders := w.openFolders()
	f := folderFor(folders, p)
	if f == nil {
		return p
	}
	rel, _ := filepath.Rel(f.dir, p)
	if len(folders) > 1 {
		return f.name + "/" + filepath.ToSlash(rel)
	}
	return filepath.ToSlash(rel)
}

// workspaceDirs are the folders the client opened: every workspace folder
// with a file URI, else rootUri, then rootPath, then the working directory
// — unless that is / or the home directory (an editor with no folder
// open): none then, and runs are refused rather than let the agent roam
// the whole disk. warnings name the folders left out.
func workspaceDirs(p *protocol.InitializeParams) (dirs []string, uris []uri.URI, warnings []string) {
	if folders, ok := p.WorkspaceFolders.Get(); ok {
		for _, wf := range folders {
			dir, err := documents.PathOf(wf.URI)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("workspace folder %s left out: %v (agent-lsp works on local folders)", wf.URI, err))
				continue
			}
			if !slices.Contains(dirs, dir) {
				dirs, uris = append(dirs, dir), append(uris, wf.URI)
			}
		}
		if len(dirs) > 0 {
			return dirs, uris, warnings
		}
	}
	//lint:ignore SA1019 a client without workspace folders gives its root here (rootUri, LSP before 3.6; rootPath before that)
	rootURI, rootPath := p.RootURI, p.RootPath
	if rootURI != nil {
		if dir, err := documents.PathOf(*rootURI); err == nil {
			return []string{dir}, []uri.URI{*rootURI}, warnings
		}
	}
	if rp, ok := rootPath.Get(); ok && rp != "" {
		return []string{rp}, []uri.URI{""}, warnings
	}
	wd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	if wd == "/" || wd == home {
		return nil, nil, warnings
	}
	return []string{wd}, []uri.URI{""}, warnings
}

// didChangeWorkspaceFolders takes folders added and removed in the editor;
// the next run sees them (a run going on keeps the roots it started
// with). A folder that is no local directory is left out, and said so.
func (s *Server) didChangeWorkspaceFolders(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.DidChangeWorkspaceFoldersParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	var warnings []string
	removed := map[string]bool{} // by URI as sent, and by path: a URI and a path never look alike
	for _, wf := range params.Event.Removed {
		removed[string(wf.URI)] = true
		if dir, err := documents.PathOf(wf.URI); err == nil {
			removed[dir] = true
		}
	}
	var added []*folder
	for _, wf := range params.Event.Added {
		dir, err := documents.PathOf(wf.URI)
		if err == nil {
			if fi, serr := os.Stat(dir); serr != nil || !fi.IsDir() {
				err = fmt.Errorf("%s is not a directory", dir)
			}
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("workspace folder %s left out: %v (agent-lsp works on local folders)", wf.URI, err))
			continue
		}
		f, w := s.workspace.load(dir, wf.URI)
		warnings = append(warnings, w...)
		added = append(added, f)
	}
	roots := s.workspace.changeFolders(func(f *folder) bool {
		return removed[f.dir] || (f.uri != "" && removed[string(f.uri)])
	}, added, warnings)
	for _, w := range warnings {
		s.win.showMessage(ctx, protocol.MessageTypeWarning, "agent-lsp: "+w)
	}
	s.win.logMessage(ctx, protocol.MessageTypeInfo, "agent-lsp: workspace roots: "+roots)
	return nil, nil
}

// rootsLocked names the folders for a message: "api (/src/api), web (/src/web)".
func (w *workspaceConfig) rootsLocked() string {
	if len(w.folders) == 0 {
		return "none"
	}
	parts := make([]string, len(w.folders))
	for i, f := range w.folders {
		parts[i] = fmt.Sprintf("%s (%s)", f.name, f.dir)
	}
	return strings.Join(parts, ", ")
}
