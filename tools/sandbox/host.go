package sandbox

import (
	"os"
	"runtime"
)

// host is what a command's world depends on besides its Spec and the level:
// this machine's (thisHost), or fixed in the golden tests.
type host struct {
	fs   hostFS
	goos string
	// shell is bash's path (on Windows, the POSIX shell runPlain uses),
	// shellErr why there is none.
	shell    string
	shellErr error
	home     string // the user's home, "" when unknown
	memory   int64  // the machine's, in bytes (0: unknown)
	cpus     int
	// dropGroups: the helper may drop the supplementary groups (canDropGroups).
	dropGroups bool
	seccomp    bool            // the helper has a seccomp filter for this architecture
	base       func() []Mount  // baseMounts
	roSystem   func() []string // readOnlySystem
}

// thisHost is this machine as a command's world sees it now.
func thisHost() host {
	shell, err := findShell()
	home, _ := os.UserHomeDir()
	return host{
		fs: osFS{}, goos: runtime.GOOS, shell: shell, shellErr: err, home: home,
		memory: machineMemory(), cpus: runtime.NumCPU(),
		dropGroups: canDropGroups(), seccomp: haveSeccomp, base: baseMounts, roSystem: readOnlySystem,
	}
}

// canDropGroups reports whether this process may drop supplementary groups
// in the helper: only with CAP_SETGID over its own user namespace (root).
// Others keep them, as the kernel will not let an unprivileged user shed a
// group (a negative group permission could be bypassed); World says so.
func canDropGroups() bool { return os.Geteuid() == 0 }

// commandWorld makes the command's own scratch dir where the level needs
// one (below full: its home and tmp) and builds its world there; done
// removes the dir, and is to be called whatever the error.
func commandWorld(caps Caps, spec Spec) (w World, done func(), err error) {
	done = func() {}
	scratch := ""
	if caps.Level != Full {
		if scratch, _, _, err = newScratch(); err != nil {
			return World{}, done, err
		}
		done = func() { RemoveTree(scratch) }
	}
	w, err = thisHost().world(caps, spec, scratch)
	return w, done, err
}
