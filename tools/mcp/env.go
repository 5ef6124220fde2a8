package mcp

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// inherited are the variables every stdio server gets from agent-lsp's
// environment, as the reference SDKs do: enough to find programs and a
// home, nothing secret. Anything else a server needs is in its env, where
// ${VAR} reads the user's environment for the user's own servers.
var inherited = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "TZ",
	"LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
}

// expander substitutes ${VAR} and ${VAR:-default} from env; with env nil it
// leaves every reference as written (a project's servers).
type expander struct {
	env     func(string) string
	missing []string // variables referenced, unset and without a default
}

func (e *expander) expand(s string) string {
	if e.env == nil || !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		ref := s[i+2 : i+j]
		name, deflt, hasDefault := strings.Cut(ref, ":-")
		v := e.env(name)
		switch {
		case v != "":
			b.WriteString(v)
		case hasDefault:
			b.WriteString(deflt)
		default:
			if !slices.Contains(e.missing, name) {
				e.missing = append(e.missing, name)
			}
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

func (e *expander) expandAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = e.expand(s)
	}
	return out
}

func (e *expander) expandMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = e.expand(v)
	}
	return out
}

// err says which variables were missing, or nil.
func (e *expander) err() error {
	if len(e.missing) == 0 {
		return nil
	}
	return fmt.Errorf("environment variable(s) %s not set (referenced in its configuration as ${…}; set them, or give a default: ${VAR:-value})", strings.Join(e.missing, ", "))
}

// childEnv is a stdio server's environment: the inherited variables from
// env, then its own. Never nil: a nil Env would give the server all of
// agent-lsp's environment.
func childEnv(env func(string) string, own map[string]string) []string {
	out := []string{}
	for _, k := range inherited {
		if _, overridden := own[k]; overridden {
			continue
		}
		if v := env(k); v != "" {
			out = append(out, k+"="+v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(own)) {
		out = append(out, k+"="+own[k])
	}
	return out
}
