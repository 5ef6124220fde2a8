package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Caps is what this machine's sandbox can do, found once per process.
type Caps struct {
	Level       Level
	LandlockABI int    // 0: none
	Mounts      string // full level: "overlay", or "copy" when overlays can't be mounted
	// Bounded: at full level an overlay view's writes can go to a tmpfs
	// that bounds them (see Layer); else they are measured while commands run.
	Bounded bool
	Cgroup  string // "v1", "v2", or "" (rlimits instead): cgroups
	// Why says what keeps the level below full, "" at full.
	Why string

	goRoot, modCache string   // the Go toolchain and module cache, readable by commands
	toolDirs         []string // PATH's directories and toolchain homes, readable by commands
}

// cgroups reports whether the probe could make cgroups (Linux): commands'
// Worlds are then bounded by one (World.Cgroup), else by rlimits.
func (c Caps) cgroups() bool { return c.Cgroup != "" }

// String describes the level for status lines and the trace.
func (c Caps) String() string {
	var parts []string
	if c.Level == Full {
		parts = append(parts, "namespaces", "view "+c.Mounts)
		if c.Bounded {
			parts[len(parts)-1] += " on a bounded tmpfs"
		}
	}
	if c.LandlockABI > 0 {
		parts = append(parts, fmt.Sprintf("Landlock ABI %d", c.LandlockABI))
	}
	if c.Level != None {
		if c.Cgroup != "" {
			parts = append(parts, "cgroup "+c.Cgroup)
		} else {
			parts = append(parts, "rlimits")
		}
	}
	s := string(c.Level)
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	if c.Why != "" {
		s += ": " + c.Why
	}
	return s
}

var (
	probeOnce sync.Once
	probed    Caps
)

// Probe finds the level once per process. AGENT_LSP_SANDBOX=landlock or none
// lowers it (to test a weaker level, or where the user wants it), never raises it.
func Probe() Caps {
	probeOnce.Do(func() {
		probed = probeUpTo(Level(os.Getenv("AGENT_LSP_SANDBOX")), probe)
		home, _ := os.UserHomeDir()
		probed.goRoot, probed.modCache = goDirs(os.Getenv, home)
		if probed.Level != None {
			probed.toolDirs = toolDirs(os.Getenv("PATH"), home)
		}
	})
	return probed
}

// probeUpTo is the level probe finds, never above want: at none nothing
// is probed (probing starts helpers, and lets them go), at landlock no
// namespace is tried (probe's argument).
func probeUpTo(want Level, probe func(upTo Level) Caps) Caps {
	if want == None {
		return Caps{Level: None, Why: "lowered by AGENT_LSP_SANDBOX=none"}
	}
	c := probe(want)
	if want == Landlock && c.Level == Full {
		c.Level, c.Mounts, c.Bounded = Landlock, "", false
	}
	if want == Landlock && c.Level == Landlock {
		c.Why = "lowered by AGENT_LSP_SANDBOX=landlock"
	}
	return c
}

// goDirs finds the Go toolchain and module cache that commands may read,
// without running a go the workspace could steer (a project's toolchain
// line would start a download at editor start-up): GOROOT and GOMODCACHE
// from the environment, then the toolchain of the go on PATH and go's own
// default cache, and only then `go env`, with GOTOOLCHAIN=local, in a
// neutral directory.
func goDirs(getenv func(string) string, home string) (goRoot, modCache string) {
	goRoot, modCache = getenv("GOROOT"), getenv("GOMODCACHE")
	if goRoot == "" {
		goRoot = goRootOf(exec.LookPath("go"))
	}
	if modCache == "" {
		gopath := getenv("GOPATH")
		if gopath == "" && home != "" {
			gopath = filepath.Join(home, "go")
		}
		if first := filepath.SplitList(gopath); len(first) > 0 && first[0] != "" {
			modCache = filepath.Join(first[0], "pkg", "mod")
		}
	}
	// A module cache that does not exist yet is fine (nothing was
	// downloaded); only a toolchain not found is a reason to ask go.
	if isDir(goRoot) {
		return goRoot, modCache
	}
	return goEnv()
}

// goRootOf is the toolchain a go binary belongs to: the directory above
// its bin, links resolved, if it holds Go's sources.
func goRootOf(bin string, err error) string {
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return ""
	}
	root := filepath.Dir(filepath.Dir(real))
	if !isDir(filepath.Join(root, "src", "runtime")) {
		return ""
	}
	return root
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return p != "" && err == nil && fi.IsDir()
}

// goEnv asks the go command, pinned to its own toolchain, from a directory
// no project steers.
func goEnv() (goRoot, modCache string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "env", "GOROOT", "GOMODCACHE")
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		return "", ""
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return "", ""
	}
	return lines[0], lines[1]
}

// toolchainHomes hold installed toolchains and nothing secret (unlike, say,
// ~/.cargo, whose credentials.toml holds a registry token).
var toolchainHomes = []string{".rustup", ".pyenv", ".nvm", ".volta", ".sdkman", ".asdf", ".local/share/mise", "go/bin", ".local/bin"}

// toolDirs lists what commands may read besides the system: PATH's
// directories, but never the home directory itself, an ancestor of it or a
// relative entry, and the toolchain homes that exist.
func toolDirs(path, home string) []string {
	var dirs []string
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if d == "/" || (home != "" && (d == home || strings.HasPrefix(home, d+"/"))) {
			continue
		}
		dirs = append(dirs, d)
	}
	if home != "" {
		for _, h := range toolchainHomes {
			if fi, err := os.Stat(filepath.Join(home, h)); err == nil && fi.IsDir() {
				dirs = append(dirs, filepath.Join(home, h))
			}
		}
	}
	return dirs
}
