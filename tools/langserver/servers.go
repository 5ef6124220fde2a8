package langserver

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ServerConfig is one language server: how to start it, which files are
// its, and where a project's root is.
type ServerConfig struct {
	Name string
	// Command and Args start it; Command is looked up on PATH.
	Command string
	Args    []string
	// Languages are the LSP language ids it serves; Extensions map a file
	// to one (".go": "go").
	Languages  []string
	Extensions map[string]string
	// RootMarkers are files whose folder is a project's root (go.mod); the
	// nearest one above a file within the workspace wins, else the
	// workspace's root.
	RootMarkers []string
	// BuildFiles act on the build (go.mod): when a run stages one, the
	// server is restarted on a view that holds it.
	BuildFiles            []string
	InitializationOptions map[string]any
	// Install says how to install it, for the "missing" line.
	Install string
	// TSServerDiagnostics: typescript-language-server's pushes carry no
	// version, so its tsserver is asked instead (ClientOptions).
	TSServerDiagnostics bool
	// NewDirsOnDisk: a file the run creates in a new folder is seen only
	// on a view holding it (AfterEdit starts the run's own server there).
	NewDirsOnDisk bool
	// ClangdRebuild: a new version of a document's same text asks clangd
	// to rebuild it (ClientOptions).
	ClangdRebuild bool
	// Loaded is how it is known whether the server loaded a file's
	// package or project ("" asks nothing).
	Loaded LoadedProbe
	// IndexBesideCompileCommands: clangd writes its background index
	// beside compile_commands.json, in the project. A starter that cannot
	// hold the project read-only (level none) gives it a copy elsewhere.
	IndexBesideCompileCommands bool
	// Enabled = false keeps it from starting.
	Disabled bool
}

// KnownServers are the servers found on PATH without configuration, in
// the order they are tried for a language (pyright before basedpyright).
func KnownServers() []ServerConfig {
	python := map[string]string{".py": "python", ".pyi": "python"}
	pyMarkers := []string{"pyproject.toml", "pyrightconfig.json", "setup.py", "setup.cfg", "requirements.txt"}
	return []ServerConfig{
		{Name: "gopls", Command: "gopls", Languages: []string{"go"}, Extensions: map[string]string{".go": "go"},
			RootMarkers: []string{"go.work", "go.mod"}, BuildFiles: []string{"go.mod", "go.sum", "go.work"}, NewDirsOnDisk: true, Loaded: LoadedByGoplsPackages,
			// Every file's diagnostics at once: by default the packages
			// that import a changed one are diagnosed a second later.
			InitializationOptions: map[string]any{"diagnosticsDelay": "0s"},
			Install:               "go install golang.org/x/tools/gopls@latest"},
		{Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"}, Languages: []string{"python"}, Extensions: python,
			RootMarkers: pyMarkers, BuildFiles: []string{"pyproject.toml", "pyrightconfig.json", "setup.cfg"}, Loaded: LoadedByPyrightConfig,
			Install: "npm install -g pyright"},
		{Name: "basedpyright", Command: "basedpyright-langserver", Args: []string{"--stdio"}, Languages: []string{"python"}, Extensions: python,
			RootMarkers: pyMarkers, BuildFiles: []string{"pyproject.toml", "pyrightconfig.json", "setup.cfg"}, Loaded: LoadedByPyrightConfig,
			Install: "pip install basedpyright"},
		{Name: "typescript-language-server", Command: "typescript-language-server", Args: []string{"--stdio"},
			Languages:   []string{"typescript", "typescriptreact", "javascript", "javascriptreact"},
			Extensions:  map[string]string{".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact"},
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"}, BuildFiles: []string{"package.json", "tsconfig.json", "jsconfig.json"},
			Install: "npm install -g typescript-language-server typescript", TSServerDiagnostics: true, Loaded: LoadedByTSServerProject},
		// Headers as the open documents have them (the run's staged text),
		// not as on disk.
		{Name: "clangd", Command: "clangd", Args: []string{"--use-dirty-headers"}, Languages: []string{"c", "cpp"}, ClangdRebuild: true,
			IndexBesideCompileCommands: true,
			Extensions:                 map[string]string{".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp"},
			RootMarkers:                []string{"compile_commands.json", "compile_flags.txt", ".clangd"}, BuildFiles: []string{"compile_commands.json", "compile_flags.txt", ".clangd"},
			Install: "apt-get install clangd (or your system's clangd package)"},
		{Name: "rust-analyzer", Command: "rust-analyzer", Languages: []string{"rust"}, Extensions: map[string]string{".rs": "rust"},
			RootMarkers: []string{"Cargo.toml"}, BuildFiles: []string{"Cargo.toml", "Cargo.lock"},
			Install: "rustup component add rust-analyzer"},
	}
}

// Override is a server's settings as a config file gives them ([lsp.NAME]):
// a known server's fields overridden, or a new server's. A field it
// leaves empty keeps what it lays over (Over).
type Override struct {
	Command string   `toml:"command" json:"-"`
	Args    []string `toml:"args" json:"-"`
	// Languages are the LSP language ids it serves (go, python,
	// typescript, c, cpp, rust …); Extensions map file extensions to one
	// (".go" = "go") for a language agent-lsp does not know.
	Languages  []string          `toml:"languages" json:"-"`
	Extensions map[string]string `toml:"extensions" json:"-"`
	// RootMarkers are files whose folder is a project's root.
	RootMarkers           []string       `toml:"root_markers" json:"-"`
	InitializationOptions map[string]any `toml:"initialization_options" json:"-"`
	// Enabled = false keeps the server from starting.
	Enabled *bool `toml:"enabled" json:"-"`
}

// IsEnabled is false only for enabled = false.
func (o Override) IsEnabled() bool { return o.Enabled == nil || *o.Enabled }

// Over is o laid over base: each field o sets replaces base's (a command
// with its arguments). It is the one place that rule is written: a config
// file over another, and the settings over a known server.
func (o Override) Over(base Override) Override {
	if o.Command != "" {
		base.Command, base.Args = o.Command, o.Args
	}
	if len(o.Languages) > 0 {
		base.Languages = o.Languages
	}
	if len(o.Extensions) > 0 {
		base.Extensions = o.Extensions
	}
	if len(o.RootMarkers) > 0 {
		base.RootMarkers = o.RootMarkers
	}
	if o.InitializationOptions != nil {
		base.InitializationOptions = o.InitializationOptions
	}
	if o.Enabled != nil {
		base.Enabled = o.Enabled
	}
	return base
}

// overridable is what of c an Override sets.
func (c ServerConfig) overridable() Override {
	enabled := !c.Disabled
	return Override{Command: c.Command, Args: c.Args, Languages: c.Languages, Extensions: c.Extensions,
		RootMarkers: c.RootMarkers, InitializationOptions: c.InitializationOptions, Enabled: &enabled}
}

// with is c with o's fields.
func (c ServerConfig) with(o Override) ServerConfig {
	c.Command, c.Args, c.Languages, c.Extensions = o.Command, o.Args, o.Languages, o.Extensions
	c.RootMarkers, c.InitializationOptions, c.Disabled = o.RootMarkers, o.InitializationOptions, !o.IsEnabled()
	return c
}

// Servers are the servers in force: the known ones with the configured
// ones laid over them by name (a new name adds a server).
type Servers []ServerConfig

// WithOverrides lays the settings' servers over the known ones, by name
// (sorted, so the order is the same every time); a name no server has
// adds one. Languages given without extensions take the extensions the
// known servers give them.
func WithOverrides(known []ServerConfig, overrides map[string]Override) Servers {
	out := slices.Clone(known)
	for _, name := range slices.Sorted(maps.Keys(overrides)) {
		o := overrides[name]
		if len(o.Extensions) == 0 && len(o.Languages) > 0 {
			o.Extensions = ExtensionsOf(o.Languages)
		}
		i := slices.IndexFunc(out, func(s ServerConfig) bool { return s.Name == name })
		if i < 0 {
			out = append(out, ServerConfig{Name: name}.with(o.Over(Override{})))
			continue
		}
		out[i] = out[i].with(o.Over(out[i].overridable()))
	}
	return out
}

// For are the enabled servers for path's language, in order, and the
// language.
func (ss Servers) For(path string) ([]ServerConfig, string) {
	ext := strings.ToLower(filepath.Ext(path))
	var out []ServerConfig
	lang := ""
	for _, s := range ss {
		if l, ok := s.Extensions[ext]; ok && !s.Disabled {
			out = append(out, s)
			if lang == "" {
				lang = l
			}
		}
	}
	return out, lang
}

// ForBuildFile are the enabled servers for which path is a build file.
func (ss Servers) ForBuildFile(path string) []ServerConfig {
	var out []ServerConfig
	for _, s := range ss {
		if !s.Disabled && s.IsBuildFile(path) {
			out = append(out, s)
		}
	}
	return out
}

// ProjectRoot is the folder of the nearest root marker above file, not
// above top; top when there is none.
func (s ServerConfig) ProjectRoot(file, top string) string {
	dir := filepath.Dir(file)
	for {
		for _, m := range s.RootMarkers {
			if fi, err := os.Lstat(filepath.Join(dir, m)); err == nil && !fi.IsDir() {
				return dir
			}
		}
		if dir == top || !strings.HasPrefix(dir, top+string(filepath.Separator)) {
			return top
		}
		dir = filepath.Dir(dir)
	}
}

// HasProject says whether a root marker of s is above file, not above
// top: a lone file of its language is no project to start a server for.
func (s ServerConfig) HasProject(file, top string) bool {
	root := s.ProjectRoot(file, top)
	for _, m := range s.RootMarkers {
		if fi, err := os.Lstat(filepath.Join(root, m)); err == nil && !fi.IsDir() {
			return true
		}
	}
	return len(s.RootMarkers) == 0
}

// IsBuildFile says whether staging rel (slash-separated) acts on the
// server's build.
func (s ServerConfig) IsBuildFile(rel string) bool {
	return slices.Contains(s.BuildFiles, filepath.Base(rel))
}

// ExtensionsOf are the extensions the known servers give languages.
func ExtensionsOf(languages []string) map[string]string {
	out := map[string]string{}
	for _, s := range KnownServers() {
		for ext, lang := range s.Extensions {
			if slices.Contains(languages, lang) {
				out[ext] = lang
			}
		}
	}
	return out
}

// Availability is a server as doctor and agent.status list it.
type Availability struct {
	Server string
	Path   string // where it was found; "" when missing
	// Missing says it is not installed and how to install it.
	Missing string
}

// Available lists the enabled servers the workspace at root looks like it
// uses (a root marker at its top) and those configured, whether each is
// installed: nothing is ever downloaded, the line names the install
// command.
func (ss Servers) Available(root string, configured []string, lookPath func(string) (string, error)) []Availability {
	var out []Availability
	for _, s := range ss {
		if s.Disabled {
			continue
		}
		used := slices.Contains(configured, s.Name)
		for _, m := range s.RootMarkers {
			if fi, err := os.Lstat(filepath.Join(root, m)); err == nil && !fi.IsDir() {
				used = true
			}
		}
		if !used {
			continue
		}
		a := Availability{Server: s.Name}
		if p, err := lookPath(s.Command); err == nil {
			a.Path = p
		} else {
			a.Missing = fmt.Sprintf("%s is not installed (not on PATH); install it with: %s", s.Command, s.Install)
		}
		out = append(out, a)
	}
	return out
}
