package config

import (
	"fmt"
	"path/filepath"
	"strings"
)

// NetworkOptIn is sandbox_network: true (every workspace) or the workspaces
// whose commands may use the network, as paths or globs ("~/src/api",
// "~/work/*"). The opt-in is per workspace so that allowing it for one
// project does not hand it to every repository the user opens.
type NetworkOptIn []string

// UnmarshalTOML takes a bool or a list of strings.
func (n *NetworkOptIn) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case bool:
		*n = nil
		if v {
			*n = NetworkOptIn{"*"}
		}
		return nil
	case []any:
		var out NetworkOptIn
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("sandbox_network: want true, false or a list of workspace paths, got %v", e)
			}
			out = append(out, s)
		}
		*n = out
		return nil
	}
	return fmt.Errorf("sandbox_network: want true, false or a list of workspace paths, got %v", v)
}

// Allows reports whether commands of the workspace at root (absolute, links
// resolved) may use the network; home expands a leading "~".
func (n NetworkOptIn) Allows(root, home string) bool {
	for _, pattern := range n {
		if pattern == "*" {
			return true
		}
		if home != "" && (pattern == "~" || strings.HasPrefix(pattern, "~/")) {
			pattern = filepath.Join(home, pattern[1:])
		}
		pattern = filepath.Clean(pattern)
		if resolved, err := filepath.EvalSymlinks(pattern); err == nil {
			pattern = resolved
		}
		if ok, err := filepath.Match(pattern, root); err == nil && ok {
			return true
		}
	}
	return false
}
