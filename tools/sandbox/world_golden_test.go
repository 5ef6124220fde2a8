//go:build !windows

package sandbox

import (
	"errors"
	"flag"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the worlds the golden tests build")

// The golden tests pin the whole world of a command, per level and
// system, as codex pins its bwrap arguments: built by the function Run
// uses (host.world) from fixed inputs — a host described below (fakeFS),
// a caller's environment with secrets in it, fixed limits — so the text is
// the same on every machine. Any change to a mount, the environment, a
// limit, the filter or the profile changes a golden file; review the diff
// and rewrite them with
//
//	go test ./tools/sandbox -run TestWorldGolden -update

// callerEnv is the environment agent-lsp runs in: what commands need, and
// what they must never get.
var callerEnv = []string{
	"PATH=/home/u/.cargo/bin:/usr/local/go/bin:/usr/bin:/bin", "LANG=C.UTF-8", "TERM=xterm-256color", "USER=u", "HOME=/home/u",
	"OPENAI_API_KEY=canary-openai", "GITHUB_TOKEN=canary-github", "AWS_SECRET_ACCESS_KEY=canary-aws", "AGENT_LSP_MODEL=canary-model",
	"GOFLAGS=-toolexec=/evil", "LD_PRELOAD=/evil.so", "BASH_ENV=/evil.sh", "GIT_CONFIG_GLOBAL=/evil", "SSH_AUTH_SOCK=/run/user/1000/ssh",
}

// goldenView and goldenScratch are where a run made its view and the
// command's own dir; Format names them $VIEW and $SCRATCH.
const (
	goldenView    = "/tmp/agent-lsp-view-100.200-1"
	goldenScratch = "/tmp/agent-lsp-scratch-100.200-2"
	// goldenCache is a language server's own cache; Format names it $CACHE.
	goldenCache = "/home/u/.cache/agent-lsp/servers/gopls-1"
)

// linuxHost is a Debian-like machine with a merged /usr, Go in
// /usr/local/go, Rust in the user's home, and /etc files of which only the
// allowlisted may be seen.
func linuxHost() fakeFS {
	f := newFakeFS()
	f.dirs("/usr/bin", "/usr/sbin", "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/go/bin", "/usr/local/go/src/runtime", "/opt",
		"/etc/ld.so.conf.d", "/etc/ssl/certs", "/etc/ssl/private", "/etc/ca-certificates", "/etc/alternatives", "/etc/java-21-openjdk", "/etc/python3.12",
		"/home/u/.cargo/bin", "/home/u/.rustup", "/home/u/go/pkg/mod", "/home/u/.ssh", "/home/u/src/app/.git", goldenCache,
		"/opt/lsp/node_modules/.bin", "/opt/lsp/node_modules/typescript/lib",
		goldenView+"/staged", goldenView+"/copy", goldenView+"/cache", goldenScratch+"/home", goldenScratch+"/tmp")
	f.files("/usr/bin/bash", "/home/u/go/bin/gopls", "/opt/lsp/node_modules/typescript-language-server/lib/cli.mjs", "/usr/lib/os-release", "/usr/share/zoneinfo/Etc/UTC", "/run/systemd/resolve/stub-resolv.conf",
		"/etc/passwd", "/etc/group", "/etc/hosts", "/etc/hostname", "/etc/nsswitch.conf", "/etc/ld.so.cache", "/etc/ld.so.conf",
		"/etc/ssl/openssl.cnf", "/etc/bash.bashrc", "/etc/profile", "/etc/shells",
		"/etc/shadow", "/etc/sudoers", "/etc/ssh/ssh_host_ed25519_key", "/home/u/.ssh/id_ed25519")
	f.links(map[string]string{"/bin": "usr/bin", "/sbin": "usr/sbin", "/lib": "usr/lib", "/lib64": "usr/lib64",
		"/opt/lsp/node_modules/.bin/typescript-language-server": "../typescript-language-server/lib/cli.mjs",
		"/etc/resolv.conf": "../run/systemd/resolve/stub-resolv.conf", "/etc/localtime": "/usr/share/zoneinfo/Etc/UTC",
		"/etc/os-release": "../usr/lib/os-release"})
	f.dirs("/dev")
	for _, n := range devNodes {
		f.mode["/dev/"+n] = fs.ModeDevice | fs.ModeCharDevice | 0o666
	}
	return f
}

// macHost is a Mac with Homebrew's bash, Go in /usr/local/go, and its
// temp dir under /var, a link to /private/var.
func macHost() fakeFS {
	f := newFakeFS()
	f.dirs("/usr/bin", "/bin", "/opt/homebrew/bin", "/usr/local/go/bin", "/Users/u/go/pkg/mod", "/Users/u/src/app/.git",
		"/private/var/folders/xy/T/agent-lsp-sandbox-100.200-1/copy", "/private/var/folders/xy/T/agent-lsp-sandbox-100.200-1/cache",
		"/private/var/folders/xy/T/agent-lsp-scratch-100.200-2/home", "/private/var/folders/xy/T/agent-lsp-scratch-100.200-2/tmp")
	f.files("/opt/homebrew/bin/bash", "/Users/u/go/bin/gopls")
	f.dirs("/Users/u/Library/Caches/agent-lsp/gopls-1")
	f.links(map[string]string{"/var": "private/var", "/tmp": "private/tmp", "/etc": "private/etc"})
	return f
}

func goldenHost(f fakeFS, goos string) host {
	h := host{fs: f, goos: goos, home: "/home/u", memory: 16 << 30, cpus: 4, seccomp: true,
		base: func() []Mount { return baseMountsOf(f) }, roSystem: func() []string { return readOnlySystemOf(f) }}
	h.shell = "/usr/bin/bash"
	if goos == "darwin" {
		h.shell, h.home, h.seccomp = "/opt/homebrew/bin/bash", "/Users/u", false
	}
	return h
}

func linuxCaps(level Level) Caps {
	return Caps{Level: level, LandlockABI: 6, Mounts: "overlay", Bounded: true, Cgroup: "v2",
		goRoot: "/usr/local/go", modCache: "/home/u/go/pkg/mod",
		toolDirs: []string{"/home/u/.cargo/bin", "/usr/local/go/bin", "/usr/bin", "/bin", "/home/u/.rustup"}}
}

func goldenSpec() Spec {
	return Spec{Command: "go test ./... && cargo build", Env: callerEnv, GitDir: "/home/u/src/app/.git", Limits: Limits{Timeout: 30 * time.Second}}
}

// goldenServer makes spec a language server's: argv, its own cache, bounds
// of its own, no timeout.
func goldenServer(argv ...string) func(*Spec) {
	return func(s *Spec) {
		s.Server, s.Command, s.Argv, s.Cache = true, "", argv, goldenCache
		s.Limits = Limits{Memory: 2 << 30, Processes: 256}
	}
}

// and runs each of its changes.
func and(changes ...func(*Spec)) func(*Spec) {
	return func(s *Spec) {
		for _, c := range changes {
			c(s)
		}
	}
}

func TestWorldGolden(t *testing.T) {
	layer := NewLayer()
	defer layer.Close()
	overlay := View{Root: "/home/u/src/app", Lower: "/home/u/src/app", Staged: goldenView + "/staged", Layer: layer}
	copyView := View{Root: "/home/u/src/app", Copy: goldenView + "/copy"}
	for _, c := range []struct {
		name    string
		host    host
		caps    Caps
		spec    func(*Spec)
		scratch string
	}{
		// A user's machine: namespaces, the overlay on the run's bounded
		// layer (which holds the cache too), cgroups, no network.
		{"linux-full", goldenHost(linuxHost(), "linux"), linuxCaps(Full), func(s *Spec) { s.View = overlay }, ""},
		// Root where overlays don't mount, without cgroups, the network
		// opted in: the copy bound on the workspace, rlimits, no net namespace.
		{"linux-full-copy-network", func() host {
			h := goldenHost(linuxHost(), "linux")
			h.dropGroups = true
			return h
		}(), func() Caps {
			c := linuxCaps(Full)
			c.Mounts, c.Bounded, c.Cgroup = "copy", false, ""
			return c
		}(), func(s *Spec) { s.View, s.Cache, s.Network = copyView, goldenView+"/cache", true }, ""},
		// No user namespaces (a container): the copy, Landlock around it.
		{"linux-landlock", goldenHost(linuxHost(), "linux"), linuxCaps(Landlock), func(s *Spec) { s.View, s.Cache = copyView, goldenView+"/cache" }, goldenScratch},
		// No Landlock: nothing but a scrubbed environment and the copy.
		{"linux-none", goldenHost(linuxHost(), "linux"), Caps{Level: None, modCache: "/home/u/go/pkg/mod"},
			func(s *Spec) { s.View, s.Cache, s.GitDir = copyView, goldenView+"/cache", noRepository }, goldenScratch},
		// macOS with Seatbelt opted in: the profile, rlimits set by the shell.
		{"darwin-seatbelt", goldenHost(macHost(), "darwin"), Caps{Level: Seatbelt, goRoot: "/usr/local/go", modCache: "/Users/u/go/pkg/mod",
			toolDirs: []string{"/opt/homebrew/bin", "/usr/bin", "/bin"}}, func(s *Spec) {
			s.View = View{Root: "/Users/u/src/app", Copy: "/var/folders/xy/T/agent-lsp-sandbox-100.200-1/copy"}
			s.Cache, s.GitDir = "/var/folders/xy/T/agent-lsp-sandbox-100.200-1/cache", "/Users/u/src/app/.git"
			s.Env = slices.Clone(callerEnv)
			for i, kv := range s.Env {
				s.Env[i] = strings.NewReplacer("/home/u/.cargo/bin", "/opt/homebrew/bin", "/home/u", "/Users/u").Replace(kv)
			}
		}, "/private/var/folders/xy/T/agent-lsp-scratch-100.200-2"},
		// Language servers (Start): the same worlds, read-only views, their
		// own caches and bounds, no timeout, Go kept off the network.
		{"linux-full-server", goldenHost(linuxHost(), "linux"), linuxCaps(Full), and(func(s *Spec) { s.View = overlay }, goldenServer("/home/u/go/bin/gopls"),
			func(s *Spec) { s.Group = &Group{limits: Limits{Memory: 4 << 30, Processes: 1024}} }), ""},
		{"linux-landlock-server", goldenHost(linuxHost(), "linux"), linuxCaps(Landlock),
			and(func(s *Spec) { s.View = copyView }, goldenServer("/opt/lsp/node_modules/.bin/typescript-language-server", "--stdio")), goldenScratch},
		{"linux-none-server", goldenHost(linuxHost(), "linux"), Caps{Level: None, modCache: "/home/u/go/pkg/mod"},
			and(func(s *Spec) { s.View, s.GitDir = View{Root: "/home/u/src/app"}, noRepository }, goldenServer("/home/u/go/bin/gopls")), goldenScratch},
		{"darwin-seatbelt-server", goldenHost(macHost(), "darwin"), Caps{Level: Seatbelt, goRoot: "/usr/local/go", modCache: "/Users/u/go/pkg/mod",
			toolDirs: []string{"/opt/homebrew/bin", "/usr/bin", "/bin"}}, and(func(s *Spec) {
			s.View, s.GitDir = View{Root: "/Users/u/src/app"}, "/Users/u/src/app/.git"
			s.Env = []string{"PATH=/Users/u/go/bin:/usr/bin:/bin", "HOME=/Users/u", "OPENAI_API_KEY=canary-openai", "GOFLAGS=-toolexec=/evil"}
		}, goldenServer("/Users/u/go/bin/gopls"), func(s *Spec) { s.Cache = "/Users/u/Library/Caches/agent-lsp/gopls-1" }), "/private/var/folders/xy/T/agent-lsp-scratch-100.200-2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := goldenSpec()
			c.spec(&spec)
			w, err := c.host.world(c.caps, spec, c.scratch)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			w.Format(&b, Placeholder{"$VIEW", goldenView}, Placeholder{"$SCRATCH", goldenScratch}, Placeholder{"$CACHE", goldenCache},
				Placeholder{"$VIEW", "/private/var/folders/xy/T/agent-lsp-sandbox-100.200-1"}, Placeholder{"$VIEW", "/var/folders/xy/T/agent-lsp-sandbox-100.200-1"},
				Placeholder{"$SCRATCH", "/private/var/folders/xy/T/agent-lsp-scratch-100.200-2"})
			got := b.String()
			for _, secret := range []string{"canary", "/evil", "SSH_AUTH_SOCK", "shadow", "sudoers", "ssh_host", "id_ed25519", "/etc/ssl/private"} {
				if strings.Contains(got, secret) {
					t.Errorf("the world holds %q", secret)
				}
			}
			checkGolden(t, filepath.Join("testdata", c.name+".golden"), got)
		})
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	toolstest.Golden(t, path, got, *update, "go test ./tools/sandbox -run TestWorldGolden -update")
}

// fakeFS is a host's file system for hostFS: each path's mode, and each
// link's text.
type fakeFS struct {
	mode map[string]fs.FileMode
	link map[string]string
}

func newFakeFS() fakeFS { return fakeFS{mode: map[string]fs.FileMode{}, link: map[string]string{}} }

// dirs makes each directory and the ones above it.
func (f fakeFS) dirs(paths ...string) {
	for _, p := range paths {
		for d := p; d != "/" && f.mode[d] == 0; d = path.Dir(d) {
			f.mode[d] = fs.ModeDir | 0o755
		}
	}
}

func (f fakeFS) files(paths ...string) {
	for _, p := range paths {
		f.dirs(path.Dir(p))
		f.mode[p] = 0o644
	}
}

func (f fakeFS) links(links map[string]string) {
	for p, to := range links {
		f.dirs(path.Dir(p))
		f.mode[p] = fs.ModeSymlink | 0o777
		f.link[p] = to
	}
}

// resolve follows the links on the way to p, and at p itself if last.
func (f fakeFS) resolve(p string, last bool) (string, error) {
	for hops := 0; hops < 40; hops++ {
		parts := strings.Split(strings.TrimPrefix(path.Clean(p), "/"), "/")
		cur, relinked := "/", false
		for i, part := range parts {
			next := path.Join(cur, part)
			mode, ok := f.mode[next]
			if part == "" {
				continue
			}
			if !ok {
				return "", fs.ErrNotExist
			}
			if mode&fs.ModeSymlink != 0 && (i < len(parts)-1 || last) {
				to := f.link[next]
				if !path.IsAbs(to) {
					to = path.Join(cur, to)
				}
				p, relinked = path.Join(append([]string{to}, parts[i+1:]...)...), true
				break
			}
			cur = next
		}
		if !relinked {
			return cur, nil
		}
	}
	return "", errors.New("too many links")
}

func (f fakeFS) info(p string, last bool) (fs.FileInfo, error) {
	real, err := f.resolve(p, last)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: err}
	}
	if real == "/" {
		return fakeInfo{"/", fs.ModeDir | 0o755}, nil
	}
	return fakeInfo{path.Base(real), f.mode[real]}, nil
}

func (f fakeFS) Lstat(p string) (fs.FileInfo, error) { return f.info(p, false) }
func (f fakeFS) Stat(p string) (fs.FileInfo, error)  { return f.info(p, true) }

func (f fakeFS) Readlink(p string) (string, error) {
	real, err := f.resolve(p, false)
	if err != nil || f.mode[real]&fs.ModeSymlink == 0 {
		return "", &fs.PathError{Op: "readlink", Path: p, Err: fs.ErrInvalid}
	}
	return f.link[real], nil
}

func (f fakeFS) EvalSymlinks(p string) (string, error) { return f.resolve(p, true) }

func (f fakeFS) Glob(pattern string) ([]string, error) {
	var out []string
	for p := range f.mode {
		if ok, err := path.Match(pattern, p); err != nil {
			return nil, err
		} else if ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}

type fakeInfo struct {
	name string
	mode fs.FileMode
}

func (i fakeInfo) Name() string       { return i.name }
func (i fakeInfo) Size() int64        { return 0 }
func (i fakeInfo) Mode() fs.FileMode  { return i.mode }
func (i fakeInfo) ModTime() time.Time { return time.Time{} }
func (i fakeInfo) IsDir() bool        { return i.mode.IsDir() }
func (i fakeInfo) Sys() any           { return nil }
