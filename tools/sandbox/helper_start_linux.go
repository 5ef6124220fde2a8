package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A helper's start (the re-exec, the Go runtime and package initialisation)
// is most of a command's set-up time, and needs nothing of the command: so
// one helper per kind of namespaces is started ahead, blocked reading its
// spec, and the next command takes it. An idle helper holds no secret: it
// starts with an empty environment and gets everything in its spec.

// helperKind is what a helper is started with before its World comes, all
// three the World's (kindOf): its namespaces (clone flags; 0: none),
// whether it is placed in a cgroup, whether it may drop the supplementary
// groups. A spare is taken only by a World of its kind.
type helperKind struct {
	flags     uintptr
	cgroup    bool
	setgroups bool
}

// kindOf is the helper w runs in.
func kindOf(w World) (helperKind, error) {
	flags, err := cloneFlags(w.Namespaces)
	return helperKind{flags: flags, cgroup: w.Cgroup, setgroups: w.DropGroups}, err
}

// usualKind is the helper of the level's commands with namespaces flags, as
// host.world will build their Worlds: what a spare is started ahead for.
func usualKind(c Caps, flags uintptr) helperKind {
	return helperKind{flags: flags, cgroup: c.cgroups(), setgroups: canDropGroups()}
}

// helperProc is a started helper, not yet given its spec.
type helperProc struct {
	cmd  *exec.Cmd
	kind helperKind
	// cg is the cgroup the helper was put in when it started, or nil.
	// Moving a running process into a cgroup waits for an RCU grace period
	// (10–20 ms on cgroup v1), so a spare is moved while it waits, not
	// when its command comes.
	cg             *cgroup
	specW          *os.File
	reportR        *os.File
	layer          layerSocket
	stdout, stderr relay
	// server, when set, are a server's stdin and stdout, the helper's own
	// (which the server inherits); else its stdin is /dev/null and its
	// stdout the relay.
	server *serverPipes
	done   chan error // cmd.Wait's result
}

// relay forwards the helper's output to the command's writer, known only
// when the helper is taken.
type relay struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

func (r *relay) set(w io.Writer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.w = w
}

func (r *relay) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil {
		return len(p), nil
	}
	return r.w.Write(p)
}

var (
	warmMu       sync.Mutex                     // guards warm and warmStarting
	warm         = map[helperKind]*helperProc{} // the helper started ahead, by kind
	warmStarting = map[helperKind]bool{}        // a helper of this kind is being started ahead
)

// takeHelper returns the helper started ahead of kind, or starts one, and
// has the next one started ahead in the background — one at a time, so that
// many commands at once don't start as many spares.
func takeHelper(kind helperKind) (*helperProc, error) {
	warmMu.Lock()
	h := warm[kind]
	delete(warm, kind)
	warmMu.Unlock()
	go startSpare(kind)
	if h != nil {
		if h.alive() {
			return h, nil
		}
		h.specW.Close() // it died waiting (killed from outside): drop its pipes
		h.reportR.Close()
		h.layer.close()
		if h.cg != nil {
			go h.cg.remove()
		}
	}
	return spawnHelper(kind, nil, nil)
}

// prepare has the spare helper of the level's usual namespaces started
// (the probe leaves one at full level).
func prepare(c Caps) {
	readOnlySystem()
	baseMounts()
	switch c.Level {
	case Full:
		startSpare(usualKind(c, nsFlags))
	case Landlock:
		startSpare(usualKind(c, 0))
	}
}

// startSpare starts a helper of kind to wait for the next command, unless
// one is waiting or on its way.
func startSpare(kind helperKind) {
	warmMu.Lock()
	if warm[kind] != nil || warmStarting[kind] {
		warmMu.Unlock()
		return
	}
	warmStarting[kind] = true
	warmMu.Unlock()
	next, err := spawnHelper(kind, nil, nil)
	warmMu.Lock()
	defer warmMu.Unlock()
	warmStarting[kind] = false
	if err == nil {
		warm[kind] = next
	}
}

// spawnHelper starts a helper of kind, with a server's pipes as its stdin
// and stdout (nil: a command's); where kind has a cgroup, it is made under
// parents (nil: this process's own, cgroupParents()).
// The goroutine that starts it keeps its thread until the helper is done:
// Pdeathsig fires when that thread ends, not when the process does.
func spawnHelper(kind helperKind, server *serverPipes, parents map[string]string) (*helperProc, error) {
	started := make(chan error, 1)
	h := &helperProc{kind: kind, server: server, done: make(chan error, 1)}
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := h.start()
		started <- err
		if err == nil {
			h.done <- h.cmd.Wait()
		}
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	if kind.cgroup {
		var cg *cgroup
		var err error
		if parents != nil {
			cg, err = newCgroupIn(parents, Limits{}.withDefaults(), false)
		} else {
			cg, err = newCgroup(Limits{}.withDefaults())
		}
		if err == nil {
			if cg.add(h.cmd.Process.Pid) == nil {
				h.cg = cg
			} else {
				cg.remove()
			}
		}
	}
	return h, nil
}

func (h *helperProc) start() error {
	specR, specW, err := os.Pipe()
	if err != nil {
		return err
	}
	reportR, reportW, err := os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		return err
	}
	layer, layerTheirs, err := newLayerSocket()
	if err != nil {
		specR.Close()
		specW.Close()
		reportR.Close()
		reportW.Close()
		return err
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Args[0] = helperName
	cmd.Env = []string{} // never nil (nil inherits ours): the helper's environ shows nothing
	cmd.ExtraFiles = []*os.File{specR, reportW, layerTheirs}
	cmd.Stdout, cmd.Stderr = &h.stdout, &h.stderr
	if h.server != nil {
		cmd.Stdin, cmd.Stdout = h.server.stdinR, h.server.stdoutW
	}
	cmd.WaitDelay = outputWait
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: h.kind.flags == 0}
	if h.kind.flags != 0 {
		cmd.SysProcAttr.Cloneflags = h.kind.flags
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
		// Only a parent that may set groups may let the helper drop the
		// supplementary ones (World.DropGroups); for anyone else the kernel
		// refuses the map.
		cmd.SysProcAttr.GidMappingsEnableSetgroups = h.kind.setgroups
	}
	err = cmd.Start()
	specR.Close()
	reportW.Close()
	layerTheirs.Close()
	if err != nil {
		specW.Close()
		reportR.Close()
		layer.close()
		return err
	}
	h.cmd, h.specW, h.reportR, h.layer = cmd, specW, reportR, layer
	return nil
}

// alive reports whether the helper is still waiting for its spec.
func (h *helperProc) alive() bool {
	select {
	case err := <-h.done:
		h.done <- err
		return false
	default:
		return true
	}
}

// kill ends the helper and everything it started: at full level it is pid 1
// of its namespace and the kernel kills the rest with it; below, its process
// group.
func (h *helperProc) kill() {
	pid := h.cmd.Process.Pid
	if h.kind.flags == 0 {
		pid = -pid
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

// startHelper runs spec in a helper of kind: with limits (nil: none, for
// the probe) in a cgroup bounding them where kind has one, placed there
// before it may fork;
// hands it the view's layer (nil: none), sends the spec and waits, killing
// everything at ctx's end. It returns the helper's report: empty when the
// command ran, else why the isolation could not be set up (or, for a
// probe, what works).
func startHelper(ctx context.Context, spec helperSpec, kind helperKind, limits *Limits, layer *Layer, quota *diskQuota, stdout, stderr io.Writer) (string, error) {
	h, err := takeHelper(kind)
	if err != nil {
		return "", err
	}
	defer h.reportR.Close()
	defer h.layer.close()
	h.stdout.set(stdout)
	h.stderr.set(stderr)
	cg := h.cg
	if cg != nil {
		// Removal waits for the kernel to finish with the killed processes:
		// nothing the command's result needs to wait for.
		defer func() { go cg.remove() }()
	}
	if limits != nil && kind.cgroup {
		err := errors.New("no cgroup was made for the helper")
		if cg != nil {
			err = cg.setLimits(*limits)
		}
		if err != nil {
			h.specW.Close()
			h.kill()
			<-h.done
			return "", fmt.Errorf("cgroup: %w", err)
		}
	}
	sendErr := h.send(ctx, spec, layer, limits)
	waitErr := h.wait(ctx, cg, quota)
	// Whatever it left behind below full (background or setsid children); at
	// full level the pid namespace died with the helper.
	if kind.flags == 0 {
		h.kill()
	}
	if cg != nil {
		cg.kill()
	}
	report, _ := io.ReadAll(io.LimitReader(h.reportR, 64<<10))
	switch {
	case errors.Is(waitErr, ErrDiskLimit):
		return "", waitErr
	case errors.Is(sendErr, ErrLayerClosed): // the helper read no spec
		return "", sendErr
	case sendErr != nil && len(report) == 0:
		return "", fmt.Errorf("sending the spec: %w", sendErr)
	}
	return strings.TrimSpace(string(report)), waitErr
}

// send sends the helper its spec, and the view's layer: its descriptor,
// or, when no command has made it yet, the order to make it (Limits.Disk
// bytes and Files inodes, the probe's: 1 MiB and 64), then waits until
// the helper has sent it back. The spec's pipe is closed on return, sent
// or not: a helper that got none exits.
func (h *helperProc) send(ctx context.Context, spec helperSpec, layer *Layer, limits *Limits) error {
	defer h.specW.Close()
	sendSpec := func() error {
		err := json.NewEncoder(h.specW).Encode(spec)
		h.specW.Close()
		return err
	}
	if layer == nil {
		return sendSpec()
	}
	return layer.use(func(fd int) error {
		spec.Layer = &layerSpec{}
		if err := h.layer.send(fd); err != nil {
			return err
		}
		return sendSpec()
	}, func() (*os.File, error) {
		spec.Layer = &layerSpec{Make: true, Size: 1 << 20, Files: 64}
		if limits != nil {
			spec.Layer.Size, spec.Layer.Files = limits.Disk, limits.Files
		}
		if err := sendSpec(); err != nil {
			return nil, err
		}
		return h.layer.receive(ctx)
	})
}

// wait waits for the helper to exit, killing it and everything it started
// at ctx's end or when the command writes past its disk quota (nil: none).
func (h *helperProc) wait(ctx context.Context, cg *cgroup, quota *diskQuota) error {
	var check <-chan time.Time
	if quota != nil {
		check = time.After(quotaInterval)
	}
	kill := func() {
		h.kill()
		if cg != nil {
			cg.kill()
		}
	}
	for {
		select {
		case err := <-h.done:
			return err
		case <-ctx.Done():
			kill()
			return <-h.done
		case <-check:
			over, took := quota.over(h.cmd.Process.Pid)
			if over {
				kill()
				<-h.done
				return ErrDiskLimit
			}
			check = time.After(quota.next(took))
		}
	}
}
