package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// The command's root at level full is built from an allowlist, never the
// host's root with parts hidden: whatever is not listed here does not exist
// for the command. The host plans it (rootPlan, part of the command's
// World); the helper, in its own mount namespace, carries the plan out
// (buildRoot, root_linux.go) and pivots into it. The plan is written on
// every system so that it can be printed and pinned by golden tests
// anywhere; only carrying it out is Linux's.

// MountKind is what one step of the plan makes at its target.
type MountKind string

const (
	MountDir     MountKind = "dir"     // an empty directory
	MountSymlink MountKind = "symlink" // a link whose text is Source
	MountBind    MountKind = "bind"    // Source (a host path, links resolved) bound here
	MountView    MountKind = "view"    // the workspace view: the overlay or the copy
	MountTmpfs   MountKind = "tmpfs"   // a tmpfs of Size bytes and Inodes files
	MountPrivate MountKind = "private" // a dir of the command's own tmpfs (one for all such steps, the first one's Size and Inodes)
	MountLayer   MountKind = "layer"   // the dir Source of the view's layer (see Layer) bound here
	MountProc    MountKind = "proc"    // /proc of the command's pid namespace
	MountMask    MountKind = "mask"    // what is there hidden: a file by /dev/null, a dir by an empty read-only tmpfs
	MountRO      MountKind = "ro"      // what is there made read-only
)

// Mount is one step of building the root; Target is a path in the new root.
type Mount struct {
	Kind   MountKind
	Target string
	Source string `json:",omitempty"`
	RW     bool   `json:",omitempty"`
	File   bool   `json:",omitempty"` // the bound source is a file, not a directory
	Size   int64  `json:",omitempty"`
	Inodes int64  `json:",omitempty"`
	Mode   uint32 `json:",omitempty"`
}

// hostFS is what planning a command's world looks up on the host: the
// host's own file system (osFS), or a fixed tree in the golden tests, so
// that they pin the plan the same on every machine.
type hostFS interface {
	Lstat(name string) (fs.FileInfo, error)
	Stat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
	EvalSymlinks(path string) (string, error)
	Glob(pattern string) ([]string, error)
}

// osFS is the host's file system.
type osFS struct{}

func (osFS) Lstat(name string) (fs.FileInfo, error)   { return os.Lstat(name) }
func (osFS) Stat(name string) (fs.FileInfo, error)    { return os.Stat(name) }
func (osFS) Readlink(name string) (string, error)     { return os.Readlink(name) }
func (osFS) EvalSymlinks(path string) (string, error) { return filepath.EvalSymlinks(path) }
func (osFS) Glob(pattern string) ([]string, error)    { return filepath.Glob(pattern) }

// baseMounts is the part of the plan that is the same for every command
// (baseMountsOf this host's), made once per process.
var baseMounts = sync.OnceValue(func() []Mount { return baseMountsOf(osFS{}) })

// baseMountsOf is the system, /etc, /dev, /proc (with what runc hides of
// it hidden), /run and /var as host h has them.
func baseMountsOf(h hostFS) []Mount {
	var ops []Mount
	for _, d := range systemDirs {
		ops = append(ops, hostEntry(h, d, d, false)...)
	}
	ops = append(ops, Mount{Kind: MountDir, Target: "/etc"})
	for _, name := range etcAllowed {
		matches, _ := h.Glob(filepath.Join("/etc", name))
		for _, m := range matches {
			ops = append(ops, resolvedBind(h, m, m)...)
		}
	}
	ops = append(ops, Mount{Kind: MountSymlink, Target: "/etc/mtab", Source: "/proc/self/mounts"},
		Mount{Kind: MountDir, Target: "/dev"})
	for _, n := range devNodes {
		if _, err := h.Stat("/dev/" + n); err == nil {
			ops = append(ops, Mount{Kind: MountBind, Target: "/dev/" + n, Source: "/dev/" + n, RW: true, File: true})
		}
	}
	for _, l := range [][2]string{{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"}} {
		ops = append(ops, Mount{Kind: MountSymlink, Target: "/dev/" + l[0], Source: l[1]})
	}
	ops = append(ops,
		Mount{Kind: MountTmpfs, Target: "/dev/shm", Size: 64 << 20, Inodes: 4096, Mode: 0o1777},
		Mount{Kind: MountProc, Target: "/proc"},
		Mount{Kind: MountDir, Target: "/run"},
		Mount{Kind: MountSymlink, Target: "/var/tmp", Source: "/tmp"},
	)
	// Only under what the root has: it has no /sys at all.
	for _, p := range maskedPaths {
		if mounted(ops, p) {
			ops = append(ops, Mount{Kind: MountMask, Target: p})
		}
	}
	for _, p := range readOnlyPaths {
		if mounted(ops, p) {
			ops = append(ops, Mount{Kind: MountRO, Target: p})
		}
	}
	return ops
}

// readOnlySystem is what Landlock lets every command read and execute
// (readOnlySystemOf this host's), made once per process.
var readOnlySystem = sync.OnceValue(func() []string { return readOnlySystemOf(osFS{}) })

// readOnlySystemOf is the system's programs and libraries, the
// allowlisted parts of /etc, /proc and the harmless devices. At full level
// the new root holds nothing else of these anyway; below it this is the
// only file-system boundary.
func readOnlySystemOf(h hostFS) []string {
	ro := slices.Clone(systemDirs)
	for _, name := range etcAllowed {
		matches, _ := h.Glob(filepath.Join("/etc", name))
		ro = append(ro, matches...)
	}
	ro = append(ro, "/proc")
	for _, n := range devNodes {
		ro = append(ro, "/dev/"+n)
	}
	return ro
}

// mounted reports whether p is below a file system the plan mounts.
func mounted(ops []Mount, p string) bool {
	return slices.ContainsFunc(ops, func(op Mount) bool {
		return (op.Kind == MountProc || op.Kind == MountTmpfs) && strings.HasPrefix(p, op.Target+"/")
	})
}

// hostEntry recreates host path p at target: a link as the same link, a
// directory bound (read-only unless rw).
func hostEntry(h hostFS, p, target string, rw bool) []Mount {
	fi, err := h.Lstat(p)
	switch {
	case err != nil:
		return nil
	case fi.Mode()&os.ModeSymlink != 0:
		text, err := h.Readlink(p)
		if err != nil {
			return nil
		}
		return []Mount{{Kind: MountSymlink, Target: target, Source: text}}
	case fi.IsDir():
		return []Mount{{Kind: MountBind, Target: target, Source: p, RW: rw}}
	}
	return nil
}

// resolvedBind binds what host path p leads to (a file or a directory, links
// resolved on the host, where the command shapes nothing) read-only at target.
func resolvedBind(h hostFS, p, target string) []Mount {
	real, err := h.EvalSymlinks(p)
	if err != nil {
		return nil
	}
	fi, err := h.Stat(real)
	if err != nil || !(fi.IsDir() || fi.Mode().IsRegular()) {
		return nil
	}
	return []Mount{{Kind: MountBind, Target: target, Source: real, File: !fi.IsDir()}}
}

// rootPlan is the whole root of one command: the base, the toolchains
// (read-only, where the base does not have them already), a private /tmp
// and home (one tmpfs), the run's cache in the home's .cache (a host dir,
// else the view's layer's), and the view at its root (read-only unless
// viewRW) with .git bound read-only from the original.
func (h host) rootPlan(toolchains []string, v View, home, cache string, l Limits, viewRW bool) []Mount {
	ops := slices.Clone(h.base())
	ops = append(ops,
		Mount{Kind: MountPrivate, Target: "/tmp", RW: true, Size: l.Disk, Inodes: l.Files, Mode: 0o1777},
		Mount{Kind: MountPrivate, Target: home, RW: true, Size: l.Disk, Inodes: l.Files, Mode: 0o700},
	)
	for _, d := range toolchains {
		if d == "" || !filepath.IsAbs(d) || covered(ops, d) {
			continue
		}
		ops = append(ops, resolvedBind(h.fs, d, d)...)
	}
	switch {
	case cache != "":
		ops = append(ops, Mount{Kind: MountBind, Target: filepath.Join(home, ".cache"), Source: cache, RW: true})
	case v.Layer != nil:
		ops = append(ops, Mount{Kind: MountLayer, Target: filepath.Join(home, ".cache"), Source: "cache", RW: true})
	}
	ops = append(ops, Mount{Kind: MountView, Target: v.Root, RW: viewRW})
	git := filepath.Join(v.Lower, ".git")
	if v.Copy != "" {
		git = filepath.Join(v.Root, ".git")
	}
	if fi, err := h.fs.Lstat(git); err == nil && (fi.IsDir() || fi.Mode().IsRegular()) {
		ops = append(ops, Mount{Kind: MountBind, Target: filepath.Join(v.Root, ".git"), Source: git, File: !fi.IsDir()})
	}
	// Parents before children: a path sorts before every path below it.
	slices.SortStableFunc(ops, func(a, b Mount) int {
		return strings.Compare(strings.ReplaceAll(a.Target, "/", "\x00"), strings.ReplaceAll(b.Target, "/", "\x00"))
	})
	return ops
}

// covered reports whether p is already in the plan through a bind or a link
// of one of its ancestors (/usr/local/go/bin under /usr).
func covered(ops []Mount, p string) bool {
	for _, op := range ops {
		if (op.Kind == MountBind || op.Kind == MountSymlink) && (p == op.Target || strings.HasPrefix(p, op.Target+"/")) {
			return true
		}
	}
	return false
}

// privateHome is where the command's home is at full level for the
// workspace at root, on this host (privateHomeOf the user's home).
func privateHome(root string) string {
	home, _ := os.UserHomeDir()
	return privateHomeOf(home, root)
}

// privateHomeOf is the user's own home's path (so toolchains there are
// found where they are installed), backed by an empty tmpfs — unless the
// workspace is the home or holds it.
func privateHomeOf(home, root string) string {
	if home == "/" || !filepath.IsAbs(home) || home == root || strings.HasPrefix(home, root+"/") {
		return "/home/agent-lsp"
	}
	return filepath.Clean(home)
}
