package sandbox

import (
	"path/filepath"
	"strings"
)

// passedEnv are the variables of the caller's environment a command gets:
// what a shell and the toolchains need, nothing that configures a program to
// run another one (GOFLAGS, GIT_*, LD_*, BASH_ENV …) and no credentials.
var passedEnv = map[string]bool{
	"PATH": true, "LANG": true, "LANGUAGE": true, "TERM": true, "TZ": true, "COLORTERM": true, "NO_COLOR": true,
	"USER": true, "LOGNAME": true,
	"GOROOT": true, "GOOS": true, "GOARCH": true, "GOAMD64": true, "GOARM": true, "GOARM64": true,
	"CGO_ENABLED": true, "GOEXPERIMENT": true, "GOPRIVATE": true, "GONOSUMDB": true,
	"JAVA_HOME": true, "RUSTUP_HOME": true, "CARGO_HOME": true, "VIRTUAL_ENV": true,
}

// secretWords mark a variable as a credential even if its name were allowed.
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AGENT_LSP"}

// passes reports whether the variable name may reach a command.
func passes(name string) bool {
	upper := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(upper, w) {
			return false
		}
	}
	return passedEnv[name] || strings.HasPrefix(name, "LC_")
}

// environ builds a command's environment from the caller's: the allowed
// variables, then the private home, temp and cache dirs, and settings that
// keep the Go toolchain off the network and off the user's own cache.
func environ(parent []string, home, tmp, cache, modCache string) []string {
	if cache == "" {
		cache = filepath.Join(home, ".cache")
	}
	var env []string
	for _, kv := range parent {
		name, _, ok := strings.Cut(kv, "=")
		if ok && passes(name) {
			env = append(env, kv)
		}
	}
	env = append(env,
		"HOME="+home, "TMPDIR="+tmp,
		"XDG_CACHE_HOME="+filepath.Join(cache, "xdg"), "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GOCACHE="+filepath.Join(cache, "go-build"), "GOPATH="+filepath.Join(home, "go"),
		"GOTOOLCHAIN=local", "GOPROXY=off",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0",
	)
	if modCache != "" {
		env = append(env, "GOMODCACHE="+modCache)
	}
	return env
}
