package sandbox

import (
	"errors"
	"os"
	"strconv"
	"sync"
)

// Layer is where a view's commands write, at level full where Caps.Bounded:
// a tmpfs of Limits.Disk bytes and Limits.Files inodes holding the
// overlay's upper and work dirs and the run's cache, so that the file
// system itself refuses a write past the bound (ENOSPC) and nothing of it
// is on the host's disk. Its pages are charged to the memory cgroup of the
// command that wrote them.
//
// No process holds it mounted: the run's first command's helper makes it
// (a detached mount, in its own user and mount namespaces) and hands its
// descriptor to this process, which keeps it and hands it to every later
// command's helper; each mounts a clone of it in its own namespace. When
// this process closes it (Close) or dies, the tmpfs goes with the last
// helper still using it: nothing is left to sweep.
//
// The zero value is not usable; a nil *Layer is no layer.
type Layer struct {
	mu     sync.Mutex // guards fd and closed; held while a helper makes the tmpfs
	fd     *os.File   // the tmpfs's root (a detached mount), nil until a command made it
	closed bool
}

// NewLayer returns a layer that the first command run with it makes.
func NewLayer() *Layer { return &Layer{} }

// ErrLayerClosed is why a command cannot run in a view whose layer is closed.
var ErrLayerClosed = errors.New("sandbox: the view's layer was removed")

// Within runs fn with the path by which this process reaches the layer's
// dir name ("upper", "work" or "cache"), and does nothing while no command
// has made the layer (there is nothing in it then). The path is valid
// until fn returns. What is below it was written by commands: go there
// only through WriteBeneath, RemoveBeneath and RemoveTree.
func (l *Layer) Within(name string, fn func(dir string) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fd == nil {
		return nil
	}
	return fn("/proc/self/fd/" + strconv.Itoa(int(l.fd.Fd())) + "/" + name)
}

// Close lets the layer go: its tmpfs is freed once no command uses it.
func (l *Layer) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.fd == nil {
		return nil
	}
	err := l.fd.Close()
	l.fd = nil
	return err
}

// use hands the layer to a command's helper: send gets its descriptor, or
// when no command has made it yet, make has a helper make it (the layer
// stays locked meanwhile, so that two first commands make one) and returns
// its descriptor, or nil if the helper made none.
func (l *Layer) use(send func(fd int) error, make func() (*os.File, error)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return ErrLayerClosed
	case l.fd != nil:
		return send(int(l.fd.Fd()))
	}
	fd, err := make()
	if fd != nil {
		l.fd = fd
	}
	return err
}
