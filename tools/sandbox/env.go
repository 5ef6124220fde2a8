package sandbox

import (
	"fmt"
	"os"
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
	env = append(env, gitConfigEnv()...)
	if modCache != "" {
		env = append(env, "GOMODCACHE="+modCache)
	}
	if win {
		env = append(env, "USERPROFILE="+home, "TEMP="+tmp, "TMP="+tmp,
			"APPDATA="+filepath.Join(home, "AppData", "Roaming"), "LOCALAPPDATA="+filepath.Join(home, "AppData", "Local"))
	}
	return env
}

// Git never obeys the workspace where the full sandbox does not contain it
// (a repository's config, hooks and attributes' drivers run programs: a
// bare repository committed at the root made `git status` run its
// core.fsmonitor). Every command's git gets no system config, the private
// home's global one (empty for every command) and gitConfig, which is
// command scope: it wins over every config file, and it is "protected"
// config, the only kind git reads safe.bareRepository from. Below full it
// also gets gitEnv: a repository it is pointed at, never one it finds.

// gitConfig is the command-scope config of every command's git. At full
// level, where the sandbox contains git anyway, it is defence in depth and
// costs little: git run in a bare repository's dir without naming it, and
// the submodules' state in status and diff.
var gitConfig = []struct{ key, value string }{
	// A bare repository (HEAD, config, objects/, refs/ in a directory) is
	// used only where GIT_DIR or --git-dir names it, never found by walking
	// up from the directory git runs in.
	{"safe.bareRepository", "explicit"},
	// No program runs at every status to list changed files.
	{"core.fsmonitor", "false"},
	// Status and diff never start git in a submodule's work tree, whose
	// .git is the view's (a command could have made it) and which git
	// would obey: its GIT_DIR there is that .git, not ours.
	{"diff.ignoreSubmodules", "all"},
}

// gitConfigEnv spells gitConfig as GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n and
// GIT_CONFIG_VALUE_n (git ≥ 2.31; older ones ignore them).
func gitConfigEnv() []string {
	env := []string{fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(gitConfig))}
	for i, c := range gitConfig {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, c.key), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, c.value))
	}
	return env
}

// noRepository is where git is pointed below full when there is no
// repository to point it at: a device, so no repository is there and none
// can be made there; git says "not a git repository: '/dev/null'". Not on
// Windows, where git takes /dev/null for a path on the current drive
// (runPlain there uses a path in the command's own scratch dir).
const noRepository = "/dev/null"

// gitRepository is the GIT_DIR of commands below full for the workspace's
// gitDir (its .git): gitDir when it is a directory (a clone's, written by
// git and the user), else noRepository. A .git file or link is not
// followed: where it points is the workspace's to say (an archive can
// bring one to point at a directory of its own, or at /proc/self/cwd/…,
// which for a command is its own copy of the workspace).
func gitRepository(gitDir string) string {
	if fi, err := os.Lstat(gitDir); gitDir != "" && err == nil && fi.IsDir() {
		return gitDir
	}
	return noRepository
}

// gitEnv points git at gitDir, with the view's copy as its work tree,
// below full, where the command runs in the copy: git then looks for no
// repository from where it runs, so none in the copy (a bare one at the
// root or in a subdirectory, a .git directory or file a command made) is
// ever used. Should a command's program drop GIT_DIR, the search stops
// at the copy (GIT_CEILING_DIRECTORIES, which git's own children keep).
func gitEnv(gitDir, copy string) []string {
	return []string{"GIT_DIR=" + gitDir, "GIT_WORK_TREE=" + copy, "GIT_CEILING_DIRECTORIES=" + filepath.Dir(copy)}
}

// plainEnv is the environment of a command at level none (runPlain, on
// every system; win for Windows) that runs in dir: environ's, and git
// pointed at noRepo, never at the workspace's repository, which nothing
// could keep read-only there.
func plainEnv(spec Spec, home, tmp, modCache, noRepo string, win bool, dir string) []string {
	env := environFor(spec.Env, home, tmp, spec.Cache, modCache, win)
	return append(env, gitEnv(noRepo, dir)...)
}

// serverEnv is what a language server's environment adds to a command's
// (which has GOTOOLCHAIN=local and GOPROXY=off, and no GOFLAGS): gopls's
// go commands never ask the checksum database either, so nothing of Go's
// tries the network; and Cargo builds (rust-analyzer's cargo check, build
// scripts) in the server's cache, its view being read-only. cache is the
// cache's path as the server sees it, "" for its home's .cache.
func serverEnv(home, cache string) []string {
	if cache == "" {
		cache = filepath.Join(home, ".cache")
	}
	return []string{"GOSUMDB=off", "CARGO_TARGET_DIR=" + filepath.Join(cache, "cargo-target")}
}
