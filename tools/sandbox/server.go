package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// A language server is a long-lived command: the same World, built by the
// same function for the level in force (Spec.Server picks a server's),
// started without waiting for its end, with its stdin and stdout piped to
// the caller. It reads the workspace and writes only its own cache and
// its private home and tmp; it gets the commands' allowlisted environment
// and limits (memory and processes in a cgroup where there is one), no
// network and no timeout.

// Start runs spec.Argv as a language server in the sandbox: the World Run
// would build for it at the level in force, with spec.Server set, its
// stdin and stdout pipes to the caller and its stderr to spec.Stderr
// (nil: discarded; the caller caps it). ctx bounds only the start: the
// server lives until it exits or Kill. Its program is found on the PATH
// of spec.Env.
//
// spec.View is what it reads: at level full the staged build files over
// the workspace (View{Root, Lower: Root, Staged: dir}; Upper, Work and
// Layer are ignored, the overlay has none), or a Copy, bound read-only;
// below full the Copy, else the workspace itself (View{Root}). It sees
// the workspace at Process.Dir, which its root URI names. spec.Cache is
// its own (its home's .cache), kept after it exits for the next start.
//
// At level full it is in a pid namespace of its own, where agent-lsp's pid
// means nothing: initialize must say processId null, or a server that
// watches its client's pid exits at once (typescript-language-server
// does).
func Start(ctx context.Context, spec Spec) (*Process, error) {
	spec, err := serverSpec(spec)
	if err != nil {
		return nil, err
	}
	return start(ctx, Probe(), spec)
}

// ServerNeedsApproval reports whether starting a language server must be
// asked first, as a command that runs workspace code is: below level
// full, where no OS boundary holds what a server runs of the project (a
// build script, a proc macro, a virtualenv's interpreter, cgo through go
// list).
func (c Caps) ServerNeedsApproval() bool { return c.Level != Full }

// Process is a language server started by Start. Its methods may be
// called from any goroutine.
type Process struct {
	stdin  io.WriteCloser
	stdout io.ReadCloser
	pid    int
	dir    string
	world  World

	kill     func() // kills the whole tree; idempotent
	killOnce sync.Once
	done     chan struct{} // closed once it exited and was cleaned up
	res      Result
	err      error
}

// Stdin is the server's standard input. Closing it is the caller's.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stdout is the server's standard output, read until EOF (its exit);
// closing it is the caller's, once done reading.
func (p *Process) Stdout() io.ReadCloser { return p.stdout }

// Pid is the process whose end is the server's: the sandbox's helper at
// levels full and landlock (the server is its child), else the server.
func (p *Process) Pid() int { return p.pid }

// Dir is where the server sees the workspace: the directory it started in,
// which its root URI must name (the workspace's own path at level full,
// else the view's copy or the workspace).
func (p *Process) Dir() string { return p.dir }

// World is the world the server runs in.
func (p *Process) World() World { return p.world }

// Kill kills the server and everything it started. It may be called any
// number of times, before or after it exited (then it does nothing: its
// pid could be another process's by then).
func (p *Process) Kill() {
	select {
	case <-p.done:
	default:
		p.killOnce.Do(p.kill)
	}
}

// Wait waits for the server to exit and returns how it ended, once its
// dirs and cgroup are removed. A non-zero exit (a killed server's is
// 128+9) is a Result, not an error; an error says the sandbox failed.
func (p *Process) Wait() (Result, error) {
	<-p.done
	return p.res, p.err
}

// Exited is closed once the server exited and was cleaned up.
func (p *Process) Exited() <-chan struct{} { return p.done }

// newProcess is a started server whose end wait returns (after which
// cleanup runs); its stdin is closed then, its stdout left to the reader.
func newProcess(w World, pid int, stdin io.WriteCloser, stdout io.ReadCloser, kill func(), wait func() (Result, error), cleanup func()) *Process {
	p := &Process{stdin: stdin, stdout: stdout, pid: pid, dir: w.Dir, world: w, kill: kill, done: make(chan struct{})}
	start := time.Now()
	go func() {
		p.res, p.err = wait()
		p.res.Duration = time.Since(start)
		stdin.Close()
		cleanup()
		close(p.done)
	}()
	return p
}

// serverPipes are a server's stdin and stdout: theirs go to the process
// started (and are closed here once it has them), ours to the caller.
type serverPipes struct {
	stdinR, stdinW, stdoutR, stdoutW *os.File
}

func newServerPipes() (*serverPipes, error) {
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		stdinR.Close()
		stdinW.Close()
		return nil, err
	}
	return &serverPipes{stdinR, stdinW, stdoutR, stdoutW}, nil
}

// started closes the process's ends, which it now holds.
func (s *serverPipes) started() {
	s.stdinR.Close()
	s.stdoutW.Close()
}

// close closes every end: the process never started.
func (s *serverPipes) close() {
	s.started()
	s.stdinW.Close()
	s.stdoutR.Close()
}

// serverSpec is spec as a server's: Server set, and its program found on
// the PATH it will have.
func serverSpec(spec Spec) (Spec, error) {
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return spec, errors.New("sandbox: a server needs its argv")
	}
	bin, err := lookPathIn(spec.Argv[0], envValue(spec.Env, "PATH"))
	if err != nil {
		return spec, err
	}
	spec.Server = true
	spec.Argv = append([]string{bin}, spec.Argv[1:]...)
	return spec, nil
}

// lookPathIn finds the program name on path (a PATH's value); a name with
// a separator must be an absolute path. Relative PATH entries are skipped:
// they would name the workspace's own files.
func lookPathIn(name, path string) (string, error) {
	if strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator) {
		if !filepath.IsAbs(name) {
			return "", fmt.Errorf("sandbox: %s: a server's program is a name on PATH or an absolute path", name)
		}
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if bin, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return bin, nil
		}
	}
	return "", fmt.Errorf("sandbox: %s: %w", name, exec.ErrNotFound)
}

// envValue is name's value in env ("" if unset).
func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// serverCommand is a server's argv as a shell would read it (World.Command,
// and the command Seatbelt's shell runs).
func serverCommand(spec Spec) string {
	if spec.Command != "" {
		return spec.Command
	}
	words := make([]string, len(spec.Argv))
	for i, a := range spec.Argv {
		words[i] = shellWord(a)
	}
	return strings.Join(words, " ")
}

// serverDir is where a server runs below full: the view's copy (which
// holds the run's staged build files), else the workspace itself.
func serverDir(v View) string {
	if v.Copy != "" {
		return v.Copy
	}
	return v.Root
}

// serverInstall is what a server's program at bin needs to read besides the
// system and the toolchains: its dir, its real file's dir (a link into a
// package), and the node_modules it is installed in (an npm package's
// script needs its siblings: typescript-language-server needs typescript).
// A program in the workspace or its view v (a virtualenv's interpreter)
// adds nothing: the view has it, and where its links lead is the
// workspace's to say, so not granted.
func serverInstall(h hostFS, bin string, v View) []string {
	for _, root := range []string{v.Root, v.Copy} {
		if root != "" && (bin == root || strings.HasPrefix(bin, root+string(filepath.Separator))) {
			return nil
		}
	}
	dirs := []string{filepath.Dir(bin)}
	real, err := h.EvalSymlinks(bin)
	if err != nil {
		return dirs
	}
	dirs = append(dirs, filepath.Dir(real))
	sep := string(filepath.Separator)
	if i := strings.Index(real, sep+"node_modules"+sep); i >= 0 {
		modules := real[:i+len(sep+"node_modules")]
		dirs = slices.DeleteFunc(dirs, func(d string) bool { return strings.HasPrefix(d, modules+sep) })
		dirs = append([]string{modules}, dirs...)
	}
	return nonEmpty(dirs...)
}
