// Package sandbox runs one shell command under OS isolation. The calling
// process never restricts itself: it re-executes its own binary in a hidden
// helper mode (dispatched by this package's init, before main runs), and the
// helper sets up the isolation and then runs the command.
//
// On Linux at level "full" the helper is pid 1 of new user, mount, pid and
// network namespaces: the command sees the workspace view (an overlay of the
// workspace and the run's upper dir, or a copy) at the workspace's own path,
// with .git read-only, a private /proc, tmp, home and build cache, no network,
// an allowlisted environment, a process cap, a file-size and a memory limit,
// and Landlock rules that leave the rest of $HOME unreadable. When the helper
// exits the kernel kills whatever the command left behind.
//
// Invariant: nothing the command does reaches the user's files, secrets or
// network at level full; lower levels are reported, never hidden (Probe).
package sandbox

import (
	"context"
	"io"
	"time"
)

// Level is how strongly commands are isolated on this machine.
type Level string

const (
	// Full: user, mount, pid and network namespaces plus Landlock.
	Full Level = "full"
	// Landlock: no user namespaces (containers, hardened kernels); Landlock
	// confines the file system (and TCP where the ABI has it), rlimits and a
	// cgroup bound the processes. Commands run in a copy of the workspace.
	Landlock Level = "landlock"
	// None: no OS isolation (another OS, an old kernel). Commands run in a copy
	// with a scrubbed environment; everything that executes code asks first.
	None Level = "none"
)

// Limits bound the resources of one command. Zero fields take defaults.
type Limits struct {
	Processes int   // most processes at once (default 1024)
	FileSize  int64 // largest file it may write, bytes (default 1 GiB)
	Memory    int64 // bytes (default 8 GiB)
}

func (l Limits) withDefaults() Limits {
	if l.Processes <= 0 {
		l.Processes = 1024
	}
	if l.FileSize <= 0 {
		l.FileSize = 1 << 30
	}
	if l.Memory <= 0 {
		l.Memory = 8 << 30
	}
	return l
}

// View is what the command sees at Root.
type View struct {
	// Root is the workspace's real path; the command runs there (full level)
	// and the view is mounted on it.
	Root string
	// Lower, Upper and Work make an overlay: the workspace on disk, the run's
	// upper dir (staged changes and what commands wrote) and overlayfs's work dir.
	Lower, Upper, Work string
	// Copy, when set instead of an overlay, is a copy of the workspace with the
	// run's changes; at full level it is bind-mounted on Root, below full the
	// command runs in it.
	Copy string
}

// Spec is one command to run.
type Spec struct {
	Command string // a bash command line
	View    View
	// Home is a private home directory, kept per workspace; Cache a private
	// cache (GOCACHE lives there), kept per workspace so the second build is warm.
	Home, Cache string
	// Env is the caller's environment; only an allowlist of it passes.
	Env []string
	// GitDir is the workspace's repository: below full, where the command runs
	// in a copy without it, git is pointed there, read-only under Landlock
	// (and not at all at level none, where nothing could keep it read-only).
	GitDir string
	// Network lets the command reach the network (the user's own opt-in).
	Network bool
	// ReadOnly adds directories the command may read (toolchains).
	ReadOnly []string
	Limits   Limits
	Stdout   io.Writer
	Stderr   io.Writer
}

// outputWait bounds how long a finished command's output is waited for: a
// grandchild that escaped could hold the pipes open.
const outputWait = time.Second

// Result is how a command ended.
type Result struct {
	ExitCode int
	Duration time.Duration
}

// Run runs spec at the level Probe found, until it ends or ctx is done (then
// every process it started is killed and ctx's error returned). A non-zero
// exit is a Result, not an error; an error means the command could not run.
func Run(ctx context.Context, spec Spec) (Result, error) {
	return run(ctx, Probe(), spec)
}
