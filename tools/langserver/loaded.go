package langserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/bmatcuk/doublestar/v4"
	"go.lsp.dev/uri"
)

// LoadedProbe is how it is known whether a server loaded the package or
// project of a file: without that, its silence about the file proves
// nothing (gopls without the package's metadata says nothing of its
// errors).
type LoadedProbe string

const (
	// LoadedByGoplsPackages asks gopls's gopls.packages command.
	LoadedByGoplsPackages LoadedProbe = "gopls.packages"
	// LoadedByTSServerProject asks tsserver's projectInfo: a file in an
	// inferred project is in no tsconfig.json's or jsconfig.json's, and is
	// checked with default options the project's build does not use.
	LoadedByTSServerProject LoadedProbe = "tsserver.projectInfo"
	// LoadedByPyrightConfig reads the project's pyright configuration
	// (pyrightconfig.json, else pyproject.toml's [tool.pyright]): a file
	// it ignores has its diagnostics suppressed, and one it excludes, or
	// leaves out of include, is outside the project pyright analyses.
	LoadedByPyrightConfig LoadedProbe = "pyright.config"
)

// goplsPackages is gopls's command that says which packages hold files.
const goplsPackages = "gopls.packages"

// notLoaded says why the server has not loaded path's package or project
// ("" when it has, or when it cannot be asked), from the diagnostics ds it
// gave the file.
func (c *Client) notLoaded(ctx context.Context, path string, ds []Diagnostic) (string, error) {
	switch c.loaded {
	case LoadedByGoplsPackages:
		return c.goplsNotLoaded(ctx, path, ds)
	case LoadedByTSServerProject:
		return c.tsserverNotLoaded(ctx, path)
	}
	return "", nil
}

func (c *Client) offersCommand(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Contains(c.caps.ExecuteCommandProvider.Commands, name)
}

func (c *Client) goplsNotLoaded(ctx context.Context, path string, ds []Diagnostic) (string, error) {
	if !c.offersCommand(goplsPackages) {
		return "", nil // an older gopls: nothing to ask
	}
	var res struct {
		Packages []struct {
			Path string `json:"Path"`
		} `json:"Packages"`
	}
	args := struct {
		Files []uri.URI `json:"Files"`
	}{Files: []uri.URI{c.uriOf(path)}}
	if err := c.executeCommand(ctx, goplsPackages, &res, args); err != nil {
		return "", err
	}
	if len(res.Packages) > 0 {
		return "", nil
	}
	why := "gopls loaded no package holding it"
	for _, d := range ds {
		if d.Source == "go list" || strings.HasPrefix(d.Message, "No packages found") || strings.HasPrefix(d.Message, "This file is within module") ||
			strings.HasPrefix(d.Message, "No active builds contain") || strings.HasPrefix(d.Message, "initialization failed") {
			return why + ": " + truncate(oneLine(d.Message), 240), nil
		}
	}
	return why, nil
}

func (c *Client) tsserverNotLoaded(ctx context.Context, path string) (string, error) {
	var res struct {
		Body struct {
			ConfigFileName string `json:"configFileName"`
		} `json:"body"`
	}
	no := false
	if err := c.executeCommand(ctx, tsserverRequest, &res, "projectInfo", tsFile{File: c.paths.toServer(path), NeedFileNameList: &no}); err != nil {
		return "", err
	}
	switch name := res.Body.ConfigFileName; {
	case name == "":
		return "tsserver said of no project holding it", nil
	case strings.HasPrefix(name, "/dev/null/inferred"):
		return "it is in no tsconfig.json or jsconfig.json project, so tsserver checked it alone with default options", nil
	}
	return "", nil
}

// pyrightConfig is what of pyright's configuration says which files it
// analyses: paths relative to the configuration's folder, with ** * ?.
type pyrightConfig struct {
	Include []string `json:"include" toml:"include"`
	Exclude []string `json:"exclude" toml:"exclude"`
	Ignore  []string `json:"ignore" toml:"ignore"`
}

// pyrightNotLoaded says why pyright, configured by the project at root
// (read through read, the run's view), does not analyse rel, a path
// relative to root; "" when it does.
func pyrightNotLoaded(read func(rel string) (string, bool), rel string) string {
	var cfg pyrightConfig
	from := "pyrightconfig.json"
	if text, ok := read(from); ok {
		if err := json.Unmarshal([]byte(withoutJSONComments(text)), &cfg); err != nil {
			return fmt.Sprintf("pyright's %s could not be read (%v)", from, err)
		}
	} else if text, ok := read("pyproject.toml"); ok {
		from = "pyproject.toml's [tool.pyright]"
		var doc struct {
			Tool struct {
				Pyright pyrightConfig `toml:"pyright"`
			} `toml:"tool"`
		}
		if _, err := toml.Decode(text, &doc); err != nil {
			return fmt.Sprintf("pyproject.toml could not be read (%v)", err)
		}
		cfg = doc.Tool.Pyright
	} else {
		return ""
	}
	switch {
	case matchesAny(cfg.Ignore, rel):
		return fmt.Sprintf("%s ignores it: pyright suppresses its diagnostics", from)
	case len(cfg.Include) > 0 && !matchesAny(cfg.Include, rel):
		return fmt.Sprintf("%s does not include it: it is outside the project pyright analyses", from)
	case matchesAny(cfg.Exclude, rel):
		return fmt.Sprintf("%s excludes it: it is outside the project pyright analyses", from)
	}
	return ""
}

// matchesAny says whether rel is one of pyright's paths or beneath one.
func matchesAny(patterns []string, rel string) bool {
	for _, p := range patterns {
		p = strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(p), "./"), "/")
		if p == "" || p == "." {
			return true
		}
		if ok, _ := doublestar.Match(p, rel); ok {
			return true
		}
		if ok, _ := doublestar.Match(p+"/**", rel); ok {
			return true
		}
		if !strings.ContainsAny(p, "*?[") && strings.HasPrefix(rel, path.Clean(p)+"/") {
			return true
		}
	}
	return false
}

// withoutJSONComments drops // and /* */ comments outside strings, which
// pyrightconfig.json may hold.
func withoutJSONComments(s string) string {
	var b strings.Builder
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case inString:
			b.WriteByte(ch)
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
			}
		case ch == '"':
			inString = true
			b.WriteByte(ch)
		case ch == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case ch == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}
