// Package sandbox runs one shell command under OS isolation. The calling
// process never restricts itself: it re-executes its own binary in a hidden
// helper mode (dispatched by this package's init, before main runs), and the
// helper sets up the isolation and then runs the command.
//
// On Linux at level "full" the helper is pid 1 of new user, mount, pid and
// network namespaces, and the command's world is a new root assembled from
// an allowlist, as bubblewrap builds a Flatpak's: the system's programs and
// libraries and the toolchains read-only, the parts of /etc programs need,
// a minimal /dev, /proc of its own pid namespace (what runc masks of it
// masked, its sysctls read-only; no /sys), a private /tmp and home (one
// tmpfs bounded in bytes and files, empty for every command), the run's
// cache, and the workspace view (an overlay of the workspace, the staged
// changes and what the run's commands wrote, or a copy) at the workspace's
// own path with .git read-only. What the run's commands write into the view
// and the cache is on a tmpfs of the run's, bounded the same way (Layer).
// Nothing else of the host exists there: not /run, /var/run, the
// host's /tmp or $HOME, so no host daemon's unix socket. Landlock rules and
// a seccomp filter are a second layer; the command gets no capabilities, a
// fresh session keyring, no supplementary groups where they can be dropped,
// no inherited descriptors beyond stdio and an allowlisted environment.
// When the helper exits the kernel kills whatever the command left behind.
//
// On macOS the level is none unless the user opts in to Seatbelt
// (AGENT_LSP_SANDBOX=seatbelt): sandbox-exec runs the command under a
// deny-by-default profile written from the same allowlists (seatbelt.go,
// tested as text everywhere; run_darwin.go runs it). On Windows it is none:
// the command runs through Git for Windows' bash in a Job Object that
// kills its whole tree (run_plain_windows.go).
//
// Everything a command gets at any level — its argv, directory and
// environment, its namespaces and mounts, Landlock rules, seccomp filter,
// limits, network, Seatbelt profile — is one value, World, built by one
// function (world.go) and run as it is: the helper is sent it whole.
// Format prints it (world_format.go; `agent-lsp doctor --sandbox` shows
// the workspace's, through Preview), and golden tests pin it per level and
// system (testdata/*.golden).
//
// On the host, nothing a command could have shaped is followed: staging into
// a view and removing it go through beneath_unix.go (beneath_windows.go,
// which never follows a reparse point), and every directory
// this package makes carries its owner's pid so a later start removes what a
// killed process left (SweepStale).
//
// Invariant: nothing the command does reaches the user's files, secrets,
// sockets or network at level full; lower levels are reported, never
// hidden (Probe).
package sandbox

import (
	"context"
	"errors"
	"io"
	"runtime"
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
	// Memory bounds the command's processes together (default: half the
	// machine's memory, at most 8 GiB).
	Memory int64
	// Disk bounds what commands write (default 4 GiB). At level full,
	// where Caps.Bounded, it is the size of two tmpfs mounts: the view's
	// layer (what the run's commands wrote into the workspace, and the
	// run's cache), made by the run's first command and kept for the run;
	// and the command's own /tmp and home, one tmpfs empty for every
	// command. A write past it fails with ENOSPC ("No space left on
	// device"), a fallocate at once. Elsewhere what a command writes is
	// measured while it runs, and past the limit the command is killed.
	Disk int64
	// Files bounds how many files (inodes: directories, symlinks and
	// whiteouts count) each of those tmpfs mounts holds (default one per
	// 8 KiB of Disk: 524,288 for 4 GiB). Past it creating a file fails
	// with ENOSPC. What is measured instead is not counted in files.
	Files int64
	// CPU bounds each process's CPU time (default: Timeout times the
	// machine's CPUs, as RunCommand sets it; without Timeout, none).
	CPU time.Duration
	// Timeout bounds the command's wall-clock time: past it Run kills it
	// and returns context.DeadlineExceeded (default: none beyond ctx's).
	Timeout time.Duration
}

func (l Limits) withDefaults() Limits { return l.withDefaultsFor(machineMemory(), runtime.NumCPU()) }

// withDefaultsFor is withDefaults on a machine of memory bytes and cpus.
func (l Limits) withDefaultsFor(memory int64, cpus int) Limits {
	if l.Processes <= 0 {
		l.Processes = 1024
	}
	if l.FileSize <= 0 {
		l.FileSize = 1 << 30
	}
	if l.Memory <= 0 {
		l.Memory = memory / 2
		if l.Memory <= 0 || l.Memory > 8<<30 {
			l.Memory = 8 << 30
		}
	}
	if l.Disk <= 0 {
		l.Disk = 4 << 30
	}
	if l.Files <= 0 {
		l.Files = max(l.Disk/(8<<10), 1024)
	}
	if l.CPU <= 0 && l.Timeout > 0 {
		l.CPU = l.Timeout * time.Duration(max(1, cpus))
	}
	return l
}

// View is what the command sees at Root.
type View struct {
	// Root is the workspace's real path; the command runs there (full level)
	// and the view is mounted on it.
	Root string
	// Lower, Staged, Upper and Work make an overlay: the workspace on disk,
	// the run's staged changes above it (written by the host only; read-only
	// to commands), the upper dir with what the run's commands wrote, and
	// overlayfs's work dir. Staged may be empty.
	Lower, Staged, Upper, Work string
	// Layer, when set, holds the overlay's upper and work dirs instead of
	// Upper and Work, and the run's cache unless Spec.Cache names one: a
	// tmpfs bounded by Limits.Disk and Limits.Files (level full, where
	// Caps.Bounded; see NewLayer).
	Layer *Layer `json:"-"`
	// Copy, when set instead of an overlay, is a copy of the workspace with the
	// run's changes; at full level it is bind-mounted on Root, below full the
	// command runs in it.
	Copy string
}

// Spec is one command to run.
type Spec struct {
	Command string // a bash command line
	View    View
	// Cache is the run's cache (GOCACHE and XDG_CACHE_HOME live there), a
	// host dir writable by the run's commands and trusted by nothing after
	// the run. Empty with View.Layer: the layer holds the run's cache.
	// The home and tmp dirs are the command's own, made empty for it.
	Cache string
	// Env is the caller's environment; only an allowlist of it passes.
	Env []string
	// GitDir is the workspace's repository (its .git): below full, where the
	// command runs in a copy without it, git is pointed there, read-only
	// under Landlock and Seatbelt, when it is a directory (gitRepository),
	// else at no repository — and at level none never there, since nothing
	// could keep it read-only (plainEnv). Below full git never looks for a
	// repository itself (gitEnv).
	GitDir string
	// Network lets the command reach the network (the user's own opt-in).
	Network bool
	// ReadOnly adds directories the command may read (toolchains).
	ReadOnly []string
	Limits   Limits
	Stdout   io.Writer
	Stderr   io.Writer
	// Server makes spec a language server's (Start), not a command's:
	// Argv runs as it is, no shell; the view is read-only to it (at level
	// full an overlay of the staged changes over the workspace with no
	// layer to write to, or the copy bound read-only; below full the copy,
	// else the workspace itself, read-only under Landlock); Cache is its
	// own, kept for its life, and the only place it writes besides its
	// private home and tmp; Go never fetches a module or a toolchain; no
	// timeout unless Limits sets one. Start sets it.
	Server bool
	// Argv is a server's program and arguments: a name is looked up on
	// the PATH of Env, as the server will see it.
	Argv []string
	// Group, when set, bounds the server together with the group's other
	// servers (their memory and processes in all; see Group).
	Group *Group
}

// outputWait bounds how long a finished command's output is waited for: a
// grandchild that escaped could hold the pipes open.
const outputWait = time.Second

// Result is how a command ended.
type Result struct {
	ExitCode int
	Duration time.Duration
	// Exceeded says which bound killed the command, "" if none did.
	Exceeded string
}

// ErrDiskLimit is why a command that wrote more than Limits.Disk was killed.
var ErrDiskLimit = errors.New("the command wrote more than the sandbox's disk limit")

// Run runs spec at the level Probe found, in the World built for it, until
// it ends or ctx is done or spec.Limits.Timeout has passed (then every
// process it started is killed and ctx's error returned). A non-zero exit
// is a Result, not an error; an error means the command could not run.
func Run(ctx context.Context, spec Spec) (Result, error) {
	spec.GitDir = gitRepository(spec.GitDir) // the levels below full point git there
	if spec.Limits.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, spec.Limits.Timeout)
		defer cancel()
	}
	return run(ctx, Probe(), spec)
}

// Prepare probes the level (Probe) and has the helper of the first command
// started ahead where the level uses one, so that the first command's
// set-up costs what the next ones do. A server calls it after answering
// the editor's initialize.
func Prepare() Caps {
	c := Probe()
	prepare(c)
	return c
}
