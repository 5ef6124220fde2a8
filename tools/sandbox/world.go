package sandbox

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// World is the whole world one command gets: what runs, where, with which
// environment, what it sees of the file system, which network, which
// bounds. One function builds it (host.world); Run runs exactly that
// value (the helper is sent it whole), and Format prints it, so what
// `agent-lsp doctor --sandbox` shows is what commands get. It holds no
// secret: its environment is the allowlisted one the command gets.
type World struct {
	Level Level
	// Server: a language server's world (Spec.Server), started by Start
	// with its stdin and stdout piped to agent-lsp; else a command's.
	Server bool `json:",omitempty"`
	// Command is the command line; Argv is what runs it.
	Command string
	Argv    []string
	// Dir is the directory the command starts in.
	Dir string
	// Env is the command's whole environment: nothing else of the
	// caller's reaches it.
	Env []string
	// Namespaces are the Linux namespaces of its own the command runs in
	// (level full): "user", "mount", "pid", "net", "ipc", "uts".
	Namespaces []string `json:",omitempty"`
	Network    Network
	// View is the workspace view: mounted at View.Root at level full, else
	// the copy the command runs in.
	View View
	// Mounts are the command's new root, in the order they are made
	// (level full); nothing else of the host's file system exists there.
	Mounts []Mount `json:",omitempty"`
	// Landlock confines the file system (and below full, TCP); nil where
	// the level has no Landlock.
	Landlock *LandlockRules `json:",omitempty"`
	// Filter is the seccomp filter; nil where there is none.
	Filter *Filter `json:",omitempty"`
	// Limits are the bounds in force at this level, defaults applied;
	// a zero field bounds nothing.
	Limits Limits
	// Cgroup: Limits.Processes and Limits.Memory are a cgroup's bounds
	// (the helper is put in it before it may fork); else the rlimits NPROC
	// and DATA stand in for them.
	Cgroup bool `json:",omitempty"`
	// Group: a language server's cgroup is in its group's (Spec.Group),
	// which bounds the group's servers together by these Processes and
	// Memory.
	Group   *Limits  `json:",omitempty"`
	Rlimits []Rlimit `json:",omitempty"`
	// Disk is what the host measures of what the command writes while it
	// runs; nil where tmpfs mounts bound all of it (and at level none,
	// where nothing does).
	Disk *DiskWatch `json:",omitempty"`
	// DropGroups: the helper drops the supplementary groups (it may: the
	// parent runs as root); else they are kept.
	DropGroups bool `json:",omitempty"`
	// Seatbelt is the Seatbelt profile the command runs under (macOS), as
	// given to sandbox-exec in Argv.
	Seatbelt string `json:",omitempty"`
}

// Network is whether the command reaches the network, and what keeps it off.
type Network struct {
	// Allowed: the user opted in (sandbox_network).
	Allowed bool
	// Cut is what keeps the command off the network when it is not
	// allowed; "" when nothing does (level none, Landlock before ABI 4).
	Cut string `json:",omitempty"`
}

// Rlimit is one resource limit, soft and hard, set before the command runs.
type Rlimit struct {
	Name  string // RLIMIT_ without the prefix: FSIZE, CORE, CPU, NPROC, DATA
	Value uint64 // bytes, or seconds for CPU, or processes for NPROC
}

// LandlockRules are the file system (and, below full, TCP) the command may
// reach: everything else is denied.
type LandlockRules struct {
	ABI int
	RO  []string // read and execute
	RW  []string // everything
	// NoTCP denies every TCP bind and connect (ABI 4+); used where no network
	// namespace cuts the network.
	NoTCP bool
	// Scoped keeps abstract unix sockets and signals inside the sandbox (ABI 6+).
	Scoped bool
}

// Filter is the seccomp filter's options: what differs between levels. What
// it always denies is syscallfilter_linux.go's deniedCalls (Format
// summarises them).
type Filter struct {
	// NoUnixSockets refuses AF_UNIX sockets: below full, where no new root
	// hides the host's daemons' sockets and nothing else can tell their
	// paths from the command's own.
	NoUnixSockets bool
	// NoInetSockets refuses IPv4 and IPv6 sockets: the network off below
	// full, where no network namespace cuts it and Landlock cuts only TCP
	// (a UDP packet, DNS or QUIC, would leave).
	NoInetSockets bool
}

// DiskWatch is what the host adds up every so often while a command runs,
// and kills it past Limit bytes: where no file system bounds its writes.
type DiskWatch struct {
	Limit   int64
	Counted []string // host dirs that hold only what commands wrote
	Grown   []string // host dirs whose growth since the command started counts (a copy)
	Tmpfs   []string // tmpfs mounts inside the command's root
}

// namespaceNames are the namespaces of level full, in clone's order
// (cloneFlags, run_linux.go, maps them to nsFlags).
var namespaceNames = []string{"user", "mount", "pid", "net", "ipc", "uts"}

// world builds the World of a command run with spec at caps' level on host
// h: the one place it is decided. scratch is the command's own dir below
// full, holding its home and tmp (newScratch; made by the caller), ""
// at full.
func (h host) world(caps Caps, spec Spec, scratch string) (World, error) {
	if spec.Server && len(spec.Argv) == 0 {
		return World{}, errors.New("sandbox: a server needs its argv")
	}
	switch caps.Level {
	case Full, Landlock:
		return h.linuxWorld(caps, spec, scratch)
	case Seatbelt:
		return h.seatbeltWorld(caps, spec, scratch)
	}
	return h.plainWorld(caps, spec, scratch)
}

// plainWorld is level none (runPlain, on every system): the copy, the
// scrubbed environment with git pointed at no repository (plainEnv), the
// timeout and nothing else.
func (h host) plainWorld(caps Caps, spec Spec, scratch string) (World, error) {
	win := h.goos == "windows"
	w := World{Level: None, Server: spec.Server, Command: spec.Command, Argv: []string{"bash", "-c", spec.Command}, Dir: spec.View.Copy,
		View: spec.View, Network: Network{Allowed: spec.Network}, Limits: Limits{Timeout: spec.Limits.Timeout}}
	w.View.Layer = nil
	if spec.Server {
		// It only reads: the workspace itself will do where no copy was
		// made, though nothing at this level keeps it from writing there.
		w.Command, w.Argv, w.Dir = serverCommand(spec), spec.Argv, serverDir(spec.View)
		w.View = View{Root: spec.View.Root, Copy: spec.View.Copy}
		home := filepath.Join(scratch, "home")
		w.Env = append(plainEnv(spec, home, filepath.Join(scratch, "tmp"), caps.modCache, noRepository, win, w.Dir), serverEnv(home, spec.Cache)...)
		return w, nil
	}
	noRepo := noRepository
	if win {
		// The command reaches the shell in a file (runPlain writes it) and
		// git's GIT_DIR is an empty path of the scratch dir: see
		// run_plain_windows.go.
		if h.shellErr != nil {
			return World{}, h.shellErr
		}
		w.Argv = []string{h.shell, filepath.Join(scratch, "command.sh")}
		noRepo = filepath.Join(scratch, "no-repository")
	}
	w.Env = plainEnv(spec, filepath.Join(scratch, "home"), filepath.Join(scratch, "tmp"), caps.modCache, noRepo, win, spec.View.Copy)
	return w, nil
}

// linuxWorld is levels full and landlock: the helper's (helper_linux.go).
func (h host) linuxWorld(caps Caps, spec Spec, scratch string) (World, error) {
	if h.shellErr != nil {
		return World{}, h.shellErr
	}
	w, toolchains := h.linuxBase(caps, spec)
	// What the file system does not bound is measured while it runs.
	disk := &DiskWatch{Limit: w.Limits.Disk, Counted: nonEmpty(spec.Cache)}
	if spec.Server {
		// Its cache outlives it: what is there already is not its writing.
		disk.Counted, disk.Grown = nil, nonEmpty(spec.Cache)
	}
	if caps.Level == Full {
		return h.namespaceWorld(w, caps, spec, toolchains, disk)
	}
	return landlockWorld(w, caps, spec, scratch, disk), nil
}

// linuxBase is what levels full and landlock share: the command, its
// limits (a cgroup's, else rlimits), Landlock's read-only rules, the
// seccomp filter; and the toolchains it may read.
func (h host) linuxBase(caps Caps, spec Spec) (w World, toolchains []string) {
	limits := spec.Limits.withDefaultsFor(h.memory, h.cpus)
	toolchains = slices.Concat([]string{caps.goRoot, caps.modCache, filepath.Dir(h.shell)}, caps.toolDirs, spec.ReadOnly)
	command, argv := spec.Command, []string{h.shell, "-c", spec.Command}
	if spec.Server {
		command, argv = serverCommand(spec), spec.Argv
		toolchains = append(serverInstall(h.fs, argv[0], spec.View), toolchains...)
	}
	w = World{
		Level: caps.Level, Server: spec.Server, Command: command, Argv: argv,
		Network: Network{Allowed: spec.Network}, Limits: limits, Cgroup: caps.cgroups(), DropGroups: h.dropGroups,
		Landlock: &LandlockRules{ABI: caps.LandlockABI, RO: nonEmpty(slices.Concat(h.roSystem(), toolchains)...), Scoped: true},
		Rlimits:  []Rlimit{{"FSIZE", uint64(limits.FileSize)}, {"CORE", 0}},
	}
	if limits.CPU > 0 {
		w.Rlimits = append(w.Rlimits, Rlimit{"CPU", seconds(limits.CPU)})
	}
	if spec.Server && spec.Group != nil && w.Cgroup {
		w.Group = &Limits{Processes: spec.Group.limits.Processes, Memory: spec.Group.limits.Memory}
	}
	if !w.Cgroup {
		// RLIMIT_NPROC counts the user's processes (and spares root), so it is
		// only the fallback; likewise RLIMIT_DATA for memory.
		w.Rlimits = append(w.Rlimits, Rlimit{"NPROC", uint64(limits.Processes)}, Rlimit{"DATA", uint64(limits.Memory)})
	}
	if h.seccomp {
		w.Filter = &Filter{NoUnixSockets: caps.Level != Full, NoInetSockets: caps.Level != Full && !spec.Network}
	}
	return w, toolchains
}

// namespaceWorld is level full: w (linuxBase's) in namespaces of its own,
// on a new root of the view, its home and tmp.
func (h host) namespaceWorld(w World, caps Caps, spec Spec, toolchains []string, disk *DiskWatch) (World, error) {
	w.Namespaces = slices.Clone(namespaceNames)
	if spec.Network {
		w.Namespaces = slices.DeleteFunc(w.Namespaces, func(n string) bool { return n == "net" })
	} else {
		w.Network.Cut = "a network namespace of its own: loopback only"
	}
	v := spec.View
	if v.Copy != "" {
		v.Layer = nil
	}
	if spec.Server {
		// Nothing to write to: the staged changes over the workspace.
		v.Upper, v.Work, v.Layer = "", "", nil
	}
	if v.Layer != nil && !caps.Bounded {
		return World{}, errors.New("sandbox: a view's layer cannot be mounted here")
	}
	home := privateHomeOf(h.home, v.Root)
	cache := ""
	if spec.Cache != "" || v.Layer != nil {
		cache = filepath.Join(home, ".cache")
	}
	w.Env = environFor(spec.Env, home, "/tmp", cache, caps.modCache, false)
	w.View, w.Dir = v, v.Root
	w.Mounts = h.rootPlan(toolchains, v, home, spec.Cache, w.Limits, !spec.Server)
	w.Landlock.RW = []string{v.Root, "/tmp", home, "/dev/shm", "/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}
	if spec.Server {
		w.Env = append(w.Env, serverEnv(home, cache)...)
		w.Landlock.RO, w.Landlock.RW = append(w.Landlock.RO, v.Root), w.Landlock.RW[1:]
	}
	switch {
	case spec.Server: // its view is read-only: its cache, home and tmp are what grows
		disk.Tmpfs = []string{"/tmp"}
	case v.Layer != nil && spec.Cache == "":
		disk = nil // all bounded by tmpfs mounts
	case v.Layer != nil:
	case v.Copy != "":
		disk.Tmpfs, disk.Grown = []string{"/tmp"}, nonEmpty(v.Copy) // home is on /tmp's tmpfs
	default:
		disk.Tmpfs, disk.Counted = []string{"/tmp"}, append(disk.Counted, nonEmpty(v.Upper, v.Work)...)
	}
	w.Disk = disk
	return w, nil
}

// landlockWorld is level landlock: w (linuxBase's) on the host's root, in
// a copy of the workspace, with a home and tmp of the scratch dir's.
func landlockWorld(w World, caps Caps, spec Spec, scratch string, disk *DiskWatch) World {
	home, tmp := filepath.Join(scratch, "home"), filepath.Join(scratch, "tmp")
	w.Env = environFor(spec.Env, home, tmp, spec.Cache, caps.modCache, false)
	w.View, w.Dir = View{Root: spec.View.Root, Copy: spec.View.Copy}, spec.View.Copy
	w.Landlock.RW = nonEmpty(home, tmp, spec.Cache, spec.View.Copy, "/dev/null")
	grown := nonEmpty(spec.View.Copy)
	if spec.Server {
		w.Dir, grown = serverDir(spec.View), disk.Grown
		w.Env = append(w.Env, serverEnv(home, spec.Cache)...)
		w.Landlock.RO = append(w.Landlock.RO, w.Dir)
		w.Landlock.RW = nonEmpty(home, tmp, spec.Cache, "/dev/null")
	}
	if spec.GitDir != "" {
		w.Env = append(w.Env, gitEnv(spec.GitDir, w.Dir)...)
		if spec.GitDir != noRepository {
			w.Landlock.RO = append(w.Landlock.RO, spec.GitDir)
		}
	}
	w.Landlock.NoTCP = !spec.Network
	if !spec.Network {
		var cut []string
		if caps.LandlockABI >= 4 {
			cut = append(cut, "Landlock refuses every TCP connect and bind")
		}
		if w.Filter != nil && w.Filter.NoInetSockets {
			cut = append(cut, "the seccomp filter refuses IPv4 and IPv6 sockets (UDP too)")
		}
		w.Network.Cut = strings.Join(cut, "; ")
	}
	w.Limits.Files = 0 // no tmpfs of the command's: files are not counted
	disk.Counted = append(disk.Counted, nonEmpty(scratch)...)
	disk.Grown = grown
	w.Disk = disk
	return w
}

// seatbeltWorld is macOS's level (run_darwin.go): sandbox-exec runs the
// shell under the profile (seatbelt.go) in the view, an APFS clone of the
// workspace, with its own empty home and tmp, bounded by rlimits the shell
// sets before it runs the command and by the disk limit, measured.
func (h host) seatbeltWorld(caps Caps, spec Spec, scratch string) (World, error) {
	if h.shellErr != nil {
		return World{}, h.shellErr
	}
	bash := h.shell
	home, tmp := filepath.Join(scratch, "home"), filepath.Join(scratch, "tmp")
	limits := spec.Limits.withDefaultsFor(h.memory, h.cpus)
	env := environFor(spec.Env, home, tmp, spec.Cache, caps.modCache, false)
	read := realPathsIn(h.fs, slices.Concat([]string{caps.goRoot, caps.modCache, filepath.Dir(bash)}, caps.toolDirs, spec.ReadOnly))
	command, dir, view := spec.Command, spec.View.Copy, []string{spec.View.Copy}
	if spec.Server {
		command, dir, view = serverCommand(spec), serverDir(spec.View), nil
		env = append(env, serverEnv(home, spec.Cache)...)
		read = append(read, realPathsIn(h.fs, append(serverInstall(h.fs, spec.Argv[0], spec.View), dir))...)
	}
	gitVars, repo := seatbeltGitIn(h.fs, spec.GitDir, dir)
	env = append(env, gitVars...)
	read = append(read, repo...)
	write := realPathsIn(h.fs, append(view, home, tmp, spec.Cache))
	profile, err := seatbeltProfile(seatbeltPolicy{Read: read, Write: write, Network: spec.Network})
	if err != nil {
		return World{}, err
	}
	rlimits := macRlimits(limits)
	counted, grown := nonEmpty(scratch, spec.Cache), nonEmpty(view...)
	if spec.Server { // its cache outlives it: what is there already is not its writing
		counted, grown = nonEmpty(scratch), nonEmpty(spec.Cache)
	}
	w := World{
		Level: Seatbelt, Server: spec.Server, Command: command,
		Argv: []string{sandboxExec, "-p", profile, bash, "-c", ulimitScript(rlimits), bash, command},
		Dir:  dir, Env: env, View: View{Root: spec.View.Root, Copy: spec.View.Copy},
		Network: Network{Allowed: spec.Network},
		// macOS enforces no memory rlimit, and a process-count one counts
		// all the user's processes: neither is set.
		Limits:   Limits{FileSize: limits.FileSize, Disk: limits.Disk, CPU: limits.CPU, Timeout: limits.Timeout},
		Rlimits:  rlimits,
		Disk:     &DiskWatch{Limit: limits.Disk, Counted: counted, Grown: grown},
		Seatbelt: profile,
	}
	if !spec.Network {
		w.Network.Cut = "the Seatbelt profile allows no IP socket, loopback included"
	}
	return w, nil
}

// seconds is d in whole seconds, rounded up (an rlimit's unit for CPU).
func seconds(d time.Duration) uint64 {
	return uint64((d + time.Second - 1) / time.Second)
}

// nonEmpty is paths without the empty ones (what no rule, mount or
// measure could use), each once, in order: PATH often names a directory
// twice, and a toolchain's directory is also on it.
func nonEmpty(paths ...string) []string {
	seen := map[string]bool{"": true}
	return slices.DeleteFunc(slices.Clone(paths), func(p string) bool {
		dup := seen[p]
		seen[p] = true
		return dup
	})
}
