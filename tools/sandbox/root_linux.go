package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The helper carries the plan of the command's root (rootPlan, plan.go)
// out in its own mount namespace and pivots into it.

// rootBase is where the helper assembles the new root before pivoting into
// it: a tmpfs over the host's /tmp in the helper's own mount namespace.
// Every source is opened before it is covered.
const rootBase = "/tmp"

// privateBase is where, in the new root's base, the command's own tmpfs is
// mounted while its dirs are bound to their places; then it is detached and
// removed, so the command never sees it.
const privateBase = rootBase + "/.agent-lsp-private"

// buildRoot carries the plan out in the helper's mount namespace and makes
// the result its root. Bind sources are opened (O_PATH, no link followed)
// before anything is mounted, and bound from their descriptors. layer is
// the view's layer (a detached tmpfs, see Layer), or nil.
func buildRoot(ops []Mount, v View, layer *os.File) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	var clone *os.File
	if layer != nil {
		var err error
		if clone, err = cloneLayer(layer); err != nil {
			return err
		}
		defer clone.Close()
	}
	sources, err := openSources(ops, clone)
	defer func() {
		for _, f := range sources {
			if f != nil {
				f.Close()
			}
		}
	}()
	if err != nil {
		return err
	}
	view, err := openView(v, clone)
	if err != nil {
		return err
	}
	defer view.Close()
	null, err := os.OpenFile(os.DevNull, unix.O_PATH|unix.O_CLOEXEC, 0) // what masks a file
	if err != nil {
		return err
	}
	defer null.Close()
	if err := unix.Mount("tmpfs", rootBase, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=4m,mode=0755"); err != nil {
		return fmt.Errorf("mounting the new root: %w", err)
	}
	var private privateDirs
	defer private.close()
	for i, op := range ops {
		src := sources[i]
		switch op.Kind {
		case MountView:
			src = view
		case MountMask:
			src = null
		case MountPrivate:
			if src, err = private.dir(op, i); err != nil {
				return fmt.Errorf("%s %s: %w", op.Kind, op.Target, err)
			}
		case MountBind, MountLayer:
			if src == nil {
				continue
			}
		}
		if err := apply(op, rootBase+op.Target, src); err != nil {
			return fmt.Errorf("%s %s: %w", op.Kind, op.Target, err)
		}
	}
	if err := private.detach(); err != nil {
		return err
	}
	if err := unix.Mount("", rootBase, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return fmt.Errorf("making the new root read-only: %w", err)
	}
	if err := unix.Chdir(rootBase); err != nil {
		return err
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detaching the host's root: %w", err)
	}
	return unix.Chdir("/")
}

// openSources opens what the plan binds, never following a link: host
// paths (one gone since the plan was made is left out) and the layer's
// dirs, from its clone.
func openSources(ops []Mount, clone *os.File) ([]*os.File, error) {
	sources := make([]*os.File, len(ops))
	for i, op := range ops {
		switch op.Kind {
		case MountBind:
			if f, err := os.OpenFile(op.Source, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
				sources[i] = f
			}
		case MountLayer:
			if clone == nil {
				return sources, fmt.Errorf("%s %s: the view has no layer", op.Kind, op.Target)
			}
			fd, err := unix.Openat(int(clone.Fd()), op.Source, unix.O_PATH|unix.O_NOFOLLOW|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				return sources, fmt.Errorf("%s %s: %w", op.Kind, op.Target, err)
			}
			sources[i] = os.NewFile(uintptr(fd), op.Source)
		}
	}
	return sources, nil
}

// openView mounts the overlay (on the workspace's path, in this namespace
// only) or takes the copy, and returns it opened as a path. With the
// view's layer (clone, a clone of it in this namespace), the overlay's
// upper and work dirs are the layer's.
func openView(v View, clone *os.File) (*os.File, error) {
	switch {
	case v.Copy != "":
		return os.OpenFile(v.Copy, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	case v.Upper == "" && clone == nil && v.Staged == "":
		// A server's view with nothing staged: the workspace (bound read-only).
		return os.OpenFile(v.Lower, unix.O_PATH|unix.O_CLOEXEC, 0)
	}
	if clone == nil {
		if err := mountOverlay(v, v.Root); err != nil {
			return nil, err
		}
		return os.OpenFile(v.Root, unix.O_PATH|unix.O_CLOEXEC, 0)
	}
	dir := fmt.Sprintf("/proc/self/fd/%d/", clone.Fd())
	v.Upper, v.Work = dir+"upper", dir+"work"
	err := mountOverlay(v, v.Root)
	if errors.Is(err, unix.ENOSPC) { // the layer is full: its reserve makes room
		freeReserve(clone)
		err = mountOverlay(v, v.Root)
	}
	if err != nil {
		return nil, err
	}
	fillReserve(clone)
	return os.OpenFile(v.Root, unix.O_PATH|unix.O_CLOEXEC, 0)
}

// privateDirs is the command's own tmpfs, mounted at privateBase for as
// long as the root is being built: /tmp and the home are dirs of it, so
// one bound holds both.
type privateDirs struct {
	mounted bool
	opened  []*os.File
}

// dir makes the dir for op (the plan's i-th step) in the command's tmpfs,
// mounting that at the first, and returns it opened as a path.
func (p *privateDirs) dir(op Mount, i int) (*os.File, error) {
	if !p.mounted {
		if err := mkdirAll(privateBase); err != nil {
			return nil, err
		}
		if err := unix.Mount("tmpfs", privateBase, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, tmpfsOptions(op.Size, op.Inodes, 0o755)); err != nil {
			return nil, err
		}
		p.mounted = true
	}
	d := filepath.Join(privateBase, fmt.Sprint(i))
	if err := unix.Mkdir(d, 0o700); err != nil {
		return nil, err
	}
	if err := unix.Chmod(d, op.Mode); err != nil { // the mode as given, whatever the umask
		return nil, err
	}
	f, err := os.OpenFile(d, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == nil {
		p.opened = append(p.opened, f)
	}
	return f, err
}

// detach takes the command's tmpfs away from privateBase once its dirs are
// bound, and removes privateBase from the new root.
func (p *privateDirs) detach() error {
	if !p.mounted {
		return nil
	}
	if err := unix.Unmount(privateBase, unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detaching the private tmpfs: %w", err)
	}
	p.mounted = false
	return os.Remove(privateBase)
}

func (p *privateDirs) close() {
	for _, f := range p.opened {
		f.Close()
	}
}

// apply makes one step at target (the step's path under the new root's base).
func apply(op Mount, target string, src *os.File) error {
	switch op.Kind {
	case MountDir:
		return mkdirAll(target)
	case MountSymlink:
		if err := mkdirAll(filepath.Dir(target)); err != nil {
			return err
		}
		return os.Symlink(op.Source, target)
	case MountTmpfs:
		if err := mkdirAll(target); err != nil {
			return err
		}
		return unix.Mount("tmpfs", target, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, tmpfsOptions(op.Size, op.Inodes, op.Mode))
	case MountProc:
		if err := mkdirAll(target); err != nil {
			return err
		}
		return unix.Mount("proc", target, "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	case MountMask, MountRO:
		return hide(op, target, src)
	}
	if err := mountPoint(target, op.File); err != nil {
		return err
	}
	return bindAt(src, target, op.RW)
}

// bindAt binds src (nil: target itself) on target, read-only unless rw.
// The mount point is opened without following a link and mounted on
// through its descriptor: a copy view's .git placeholder is the commands'
// to change, and a link there must not move the mount.
func bindAt(src *os.File, target string, rw bool) error {
	t, err := os.OpenFile(target, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer t.Close()
	if fi, err := t.Stat(); err != nil || fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is a link: not mounted on", target)
	}
	if src == nil {
		src = t
	}
	if err := unix.Mount(fmt.Sprintf("/proc/self/fd/%d", src.Fd()), fmt.Sprintf("/proc/self/fd/%d", t.Fd()), "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	if rw {
		return nil
	}
	return remountReadOnly(target)
}

// hide masks (MountMask: a file by /dev/null, null, as runc does, a dir by
// an empty read-only tmpfs) or makes read-only (MountRO) what is at target
// in the new /proc; what this kernel does not have there is left alone.
func hide(op Mount, target string, null *os.File) error {
	fi, err := os.Lstat(target)
	switch {
	case err != nil || fi.Mode()&os.ModeSymlink != 0:
		return nil
	case op.Kind == MountRO:
		return bindAt(nil, target, false)
	case fi.IsDir():
		return unix.Mount("tmpfs", target, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,nr_inodes=1,mode=0555")
	}
	return bindAt(null, target, true)
}

// tmpfsOptions bounds a tmpfs to size bytes and inodes files (0: tmpfs's
// default, half the machine's memory in pages; never 0 as an option, which
// would be no bound at all).
func tmpfsOptions(size, inodes int64, mode uint32) string {
	opts := fmt.Sprintf("size=%d,mode=%o", size, mode)
	if inodes > 0 {
		opts += fmt.Sprintf(",nr_inodes=%d", inodes)
	}
	return opts
}

func mkdirAll(p string) error {
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		return nil
	}
	return os.MkdirAll(p, 0o755)
}

// mountPoint makes sure target exists as a directory or a file to mount on.
func mountPoint(target string, file bool) error {
	if _, err := os.Lstat(target); err == nil {
		return nil
	}
	if !file {
		return mkdirAll(target)
	}
	if err := mkdirAll(filepath.Dir(target)); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// remountReadOnly makes the bind at target read-only, keeping the flags the
// kernel locks on a mount made in a user namespace (nosuid, nodev, noexec
// and the atime ones), which a remount must repeat.
func remountReadOnly(target string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(target, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for st_, ms := range map[int64]uintptr{unix.ST_NOSUID: unix.MS_NOSUID, unix.ST_NODEV: unix.MS_NODEV, unix.ST_NOEXEC: unix.MS_NOEXEC,
		unix.ST_NOATIME: unix.MS_NOATIME, unix.ST_NODIRATIME: unix.MS_NODIRATIME, unix.ST_RELATIME: unix.MS_RELATIME} {
		if st.Flags&st_ != 0 {
			flags |= ms
		}
	}
	return unix.Mount("", target, "", flags, "")
}
