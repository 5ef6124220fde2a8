package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// How a view's layer travels (see Layer): a helper that makes it sends its
// descriptor to this process over the helper's layer socket, and this
// process sends it to every later helper the same way (SCM_RIGHTS). A
// descriptor is the only way between them: neither may open the other's
// /proc/PID/fd or root across their user namespaces.

// layerFD is the helper's end of its layer socket.
const layerFD = 5

// layerSpec tells the helper where its view's layer comes from.
type layerSpec struct {
	// Make: this command is the run's first; make the tmpfs (Size bytes,
	// Files inodes) and send it back. Else it comes over the layer socket.
	Make        bool
	Size, Files int64 `json:",omitempty"`
}

// layerDirs are the layer's dirs: the overlay's upper and work dirs, the
// run's cache, and the reserve.
var layerDirs = []string{"upper", "work", "cache", reserveDir}

// The reserve is a few empty files in a dir of the layer that commands
// never see. Mounting an overlay makes and removes files in its work dir;
// once commands have used every inode of the layer, that fails with ENOSPC
// and no later command could run to clean up. So a helper whose overlay
// does not mount for want of space frees the reserve and tries again, and
// every helper puts back what is missing of it before its command runs.
const (
	reserveDir   = "reserve"
	reserveFiles = 8
)

// makeLayer makes the view's tmpfs as a detached mount (in this helper's
// user and mount namespaces, which the mount keeps alive) with its dirs,
// and returns its root.
func makeLayer(size, files int64) (*os.File, error) {
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("the view's tmpfs: %w", err)
	}
	defer unix.Close(fs)
	for _, kv := range [][2]string{{"size", strconv.FormatInt(size, 10)}, {"nr_inodes", strconv.FormatInt(files, 10)}, {"mode", "0700"}} {
		if err := unix.FsconfigSetString(fs, kv[0], kv[1]); err != nil {
			return nil, fmt.Errorf("the view's tmpfs: %s: %w", kv[0], err)
		}
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return nil, fmt.Errorf("the view's tmpfs: %w", err)
	}
	m, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return nil, fmt.Errorf("the view's tmpfs: %w", err)
	}
	for _, d := range layerDirs {
		if err := unix.Mkdirat(m, d, 0o700); err != nil {
			unix.Close(m)
			return nil, fmt.Errorf("the view's tmpfs: %s: %w", d, err)
		}
	}
	l := os.NewFile(uintptr(m), "layer")
	fillReserve(l)
	return l, nil
}

// fillReserve makes the reserve's missing files, as far as there is room.
func fillReserve(layer *os.File) {
	dir, err := unix.Openat(int(layer.Fd()), reserveDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(dir)
	for i := range reserveFiles {
		if fd, err := unix.Openat(dir, strconv.Itoa(i), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600); err == nil {
			unix.Close(fd)
		}
	}
}

// freeReserve removes the reserve's files: their inodes are free again.
func freeReserve(layer *os.File) {
	dir, err := unix.Openat(int(layer.Fd()), reserveDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(dir)
	for i := range reserveFiles {
		unix.Unlinkat(dir, strconv.Itoa(i), 0)
	}
}

// cloneLayer clones the layer into this helper's namespaces (a detached
// mount it owns), where an overlay may use it as a layer and its dirs may
// be bound.
func cloneLayer(layer *os.File) (*os.File, error) {
	fd, err := unix.OpenTree(int(layer.Fd()), "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH)
	if err != nil {
		return nil, fmt.Errorf("cloning the view's tmpfs: %w", err)
	}
	return os.NewFile(uintptr(fd), "layer clone"), nil
}

// helperLayer is the helper's side: it makes the layer and sends it to the
// parent, or receives it.
func helperLayer(s *layerSpec) (*os.File, error) {
	if s.Make {
		l, err := makeLayer(s.Size, s.Files)
		if err != nil {
			return nil, err
		}
		if err := unix.Sendmsg(layerFD, []byte{0}, unix.UnixRights(int(l.Fd())), nil, 0); err != nil {
			l.Close()
			return nil, fmt.Errorf("sending the view's tmpfs: %w", err)
		}
		return l, nil
	}
	fd, err := recvFD(layerFD)
	if err != nil {
		return nil, fmt.Errorf("receiving the view's tmpfs: %w", err)
	}
	return os.NewFile(uintptr(fd), "layer"), nil
}

// recvFD receives one descriptor (close-on-exec) from the socket sock.
func recvFD(sock int) (int, error) {
	oob := make([]byte, unix.CmsgSpace(4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(sock, make([]byte, 1), oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, err
		}
		return parseFD(n, oob[:oobn])
	}
}

func parseFD(n int, oob []byte) (int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return -1, err
	}
	var fds []int
	for i := range msgs {
		got, err := unix.ParseUnixRights(&msgs[i])
		if err == nil {
			fds = append(fds, got...)
		}
	}
	if len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		if n == 0 {
			return -1, errors.New("the other end closed")
		}
		return -1, fmt.Errorf("%d descriptors sent, want 1", len(fds))
	}
	return fds[0], nil
}

// layerSocket is this process's end of a helper's layer socket.
type layerSocket struct{ conn *net.UnixConn }

// newLayerSocket makes a helper's layer socket: this process's end, and
// the helper's (to pass as its fd layerFD and close here once it started).
func newLayerSocket() (layerSocket, *os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return layerSocket{}, nil, err
	}
	ours := os.NewFile(uintptr(fds[0]), "layer socket")
	defer ours.Close()
	c, err := net.FileConn(ours) // a copy, on the runtime's poller
	if err != nil {
		unix.Close(fds[1])
		return layerSocket{}, nil, err
	}
	return layerSocket{c.(*net.UnixConn)}, os.NewFile(uintptr(fds[1]), "layer socket"), nil
}

func (s layerSocket) send(fd int) error {
	_, _, err := s.conn.WriteMsgUnix([]byte{0}, unix.UnixRights(fd), nil)
	return err
}

// receive waits for the layer the helper makes, until it sends it, exits
// (nil, an error) or ctx ends.
func (s layerSocket) receive(ctx context.Context) (*os.File, error) {
	stop := context.AfterFunc(ctx, func() { s.conn.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	raw, err := s.conn.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var recvErr error
	oob := make([]byte, unix.CmsgSpace(4))
	err = raw.Read(func(sock uintptr) bool {
		n, oobn, _, _, err := unix.Recvmsg(int(sock), make([]byte, 1), oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EAGAIN {
			return false
		}
		if err == nil {
			fd, err = parseFD(n, oob[:oobn])
		}
		recvErr = err
		return true
	})
	if err == nil {
		err = recvErr
	}
	if err != nil {
		return nil, fmt.Errorf("the view's tmpfs: %w", err)
	}
	return os.NewFile(uintptr(fd), "layer"), nil
}

func (s layerSocket) close() {
	if s.conn != nil {
		s.conn.Close()
	}
}
