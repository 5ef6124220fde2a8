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

// windowsEnv are what Windows programs need besides passedEnv: where the
// system and programs are, how a command name is completed, the processor.
// Upper-case: Windows compares variable names without case (PATH is
// usually "Path" there).
var windowsEnv = map[string]bool{
	"SYSTEMROOT": true, "WINDIR": true, "SYSTEMDRIVE": true, "COMSPEC": true, "PATHEXT": true,
	"PROGRAMFILES": true, "PROGRAMFILES(X86)": true, "PROGRAMW6432": true,
	"COMMONPROGRAMFILES": true, "COMMONPROGRAMFILES(X86)": true, "COMMONPROGRAMW6432": true, "PROGRAMDATA": true,
	"PROCESSOR_ARCHITECTURE": true, "PROCESSOR_IDENTIFIER": true, "NUMBER_OF_PROCESSORS": true, "OS": true,
	"USERNAME": true, "MSYSTEM": true,
}

// secretWords mark a variable as a credential even if its name were allowed.
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AGENT_LSP"}

// passes reports whether the variable name may reach a command; on
// Windows (win) names compare without case and windowsEnv's pass too.
func passes(name string, win bool) bool {
	upper := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(upper, w) {
			return false
		}
	}
	if win {
		return passedEnv[upper] || windowsEnv[upper] || strings.HasPrefix(upper, "LC_")
	}
	return passedEnv[name] || strings.HasPrefix(name, "LC_")
}

// environ builds a command's environment from the caller's: the allowed
// variables, then the private home, temp and cache dirs, and settings that
// keep the Go toolchain off the network and off the user's own cache.
func environ(parent []string, home, tmp, cache, modCache string) []string {
	return environFor(parent, home, tmp, cache, modCache, windowsHost)
}

// environFor is environ for Windows (win) or the other systems. Windows
// programs find their home, temp and application dirs in variables of
// their own (USERPROFILE, TEMP, LOCALAPPDATA …): these point at the
// private dirs too, as HOME and TMPDIR do.
func environFor(parent []string, home, tmp, cache, modCache string, win bool) []string {
	if cache == "" {
		cache = filepath.Join(home, ".cache")
	}
	var env []string
	for _, kv := range parent {
		name, _, ok := strings.Cut(kv, "=")
		if ok && passes(name, win) {
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
	if win {
		env = append(env, "USERPROFILE="+home, "TEMP="+tmp, "TMP="+tmp,
			"APPDATA="+filepath.Join(home, "AppData", "Roaming"), "LOCALAPPDATA="+filepath.Join(home, "AppData", "Local"))
	}
	return env
}
