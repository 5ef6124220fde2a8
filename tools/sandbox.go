package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
	"github.com/sourcegraph/conc/pool"
)

// Sandbox is a temporary copy of a workspace root with the run's changeset
// applied: the view commands get where overlays can't be mounted (see
// command_view.go), so they see the agent's edits while the user's files
// stay untouched. Files are cloned (reflink; on APFS the whole tree at
// once) where the file system supports it and copied otherwise, never
// hard-linked: a command writing to a file must not reach the original.
// Close removes it.
type Sandbox struct {
	Dir         string
	Files       int   // files copied
	BytesCopied int64 // bytes written by copying (0 for reflinked files)
	Reflinked   int   // files cloned instead of copied
	// TreeCloned counts the workspace's top-level entries cloned whole
	// (APFS, see cloneTree); when it is set nothing was copied.
	TreeCloned int

	root     string
	base     string            // the temporary dir holding Dir and cacheDir
	cacheDir string            // the run's cache (see commandView)
	mu       sync.Mutex        // guards applied
	applied  map[string]string // rel path → content written over the copy
}

// NewSandbox clones the workspace's current root (macOS) or copies its
// tracked and untracked-not-ignored files into a fresh temporary
// directory, and applies changes (their paths relative to that root).
func NewSandbox(ctx context.Context, w *Workspace, changes []Change) (*Sandbox, error) {
	return newSandbox(ctx, w.Tree, w.cur, changes)
}

func newSandbox(ctx context.Context, t *Tree, f *folder, changes []Change) (*Sandbox, error) {
	base, err := sandbox.MkdirTemp("sandbox")
	if err != nil {
		return nil, err
	}
	sb := &Sandbox{Dir: filepath.Join(base, "copy"), root: f.root, base: base, cacheDir: filepath.Join(base, "cache"), applied: map[string]string{}}
	for _, d := range []string{sb.Dir, sb.cacheDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			sb.Close()
			return nil, err
		}
	}
	err = sb.cloneOrCopy(ctx, t, f)
	if err == nil {
		err = sb.Sync(changes)
	}
	if err != nil {
		sb.Close()
		return nil, err
	}
	return sb, nil
}

// cloneOrCopy fills the sandbox with the root f: a clone of the whole
// tree, .git aside, where the file system makes one (macOS), else a copy
// of the files a checkout would have.
func (sb *Sandbox) cloneOrCopy(ctx context.Context, t *Tree, f *folder) error {
	n, err := cloneTree(f.root, sb.Dir)
	if err == nil {
		sb.TreeCloned = n
		return nil
	}
	if !errors.Is(err, errors.ErrUnsupported) {
		// Part of it may have been cloned: start the copy from an empty dir.
		if err := sandbox.RemoveTree(sb.Dir); err != nil {
			return err
		}
		if err := os.Mkdir(sb.Dir, 0o700); err != nil {
			return err
		}
	}
	files, err := sandboxFiles(ctx, t, f)
	if err != nil {
		return err
	}
	return sb.copyAll(ctx, files)
}

// sandboxFiles lists what a checkout would have, as `git ls-files --cached
// --others --exclude-standard` would, without running git (see gitrepo.go):
// the walk's files, which git would not ignore, and the tracked files it
// left out (ignored but committed), unless reached through a symlinked
// directory. Paths are relative to the root f, and a root nested in f is
// part of it here: the view is of the folder.
func sandboxFiles(ctx context.Context, t *Tree, f *folder) ([]string, error) {
	tracked := trackedFiles(f.root)
	var files []string
	seen := make(map[string]bool, len(tracked)) // walked files, when there are tracked ones to check
	err := t.walkFolder(ctx, f, ".", 0, false, func(e walkEntry) error {
		if !e.IsDir {
			if len(tracked) > 0 {
				seen[e.Rel] = true
			}
			files = append(files, e.Rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	realDir := map[string]bool{"": true}
	for _, rel := range tracked {
		if !seen[rel] && underRealDirs(f.root, path.Dir(rel), realDir) {
			files = append(files, rel)
		}
	}
	return files, nil
}

// underRealDirs reports whether dir (relative to root) is a directory
// reached through directories only, no symlink on the way; known caches the
// answers.
func underRealDirs(root, dir string, known map[string]bool) bool {
	if dir == "." {
		dir = ""
	}
	if ok, done := known[dir]; done {
		return ok
	}
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(dir)))
	ok := err == nil && fi.IsDir() && underRealDirs(root, path.Dir(dir), known)
	known[dir] = ok
	return ok
}

func (sb *Sandbox) copyAll(ctx context.Context, files []string) error {
	var copied, reflinked atomic.Int64
	var count atomic.Int64
	reflinkOK := atomic.Bool{}
	reflinkOK.Store(true)
	p := pool.New().WithErrors().WithContext(ctx).WithMaxGoroutines(8)
	for _, rel := range files {
		p.Go(func(ctx context.Context) error {
			n, cloned, err := copyFile(filepath.Join(sb.root, rel), filepath.Join(sb.Dir, rel), &reflinkOK)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil // listed by git but deleted on disk
				}
				return fmt.Errorf("sandbox: %s: %w", rel, err)
			}
			count.Add(1)
			if cloned {
				reflinked.Add(1)
			} else {
				copied.Add(n)
			}
			return nil
		})
	}
	err := p.Wait()
	sb.Files, sb.BytesCopied, sb.Reflinked = int(count.Load()), copied.Load(), int(reflinked.Load())
	return err
}

// copyFile clones src to dst when the file system can, else copies its bytes.
// Symlinks are recreated as links.
func copyFile(src, dst string, reflinkOK *atomic.Bool) (int64, bool, error) {
	fi, err := os.Lstat(src)
	if err != nil {
		return 0, false, err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, false, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(src)
		if err != nil {
			return 0, false, err
		}
		return 0, false, os.Symlink(target, dst)
	}
	if !fi.Mode().IsRegular() {
		return 0, false, nil
	}
	in, err := openRegular(src)
	if errors.Is(err, ErrNotRegular) {
		return 0, false, nil // swapped for a FIFO or device since the Lstat: not copied
	}
	if err != nil {
		return 0, false, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		return 0, false, err
	}
	defer out.Close()
	if reflinkOK.Load() {
		if err := cloneFile(out, in); err == nil {
			return 0, true, nil
		}
		reflinkOK.Store(false) // this file system cannot clone; stop trying
	}
	n, err := io.Copy(out, in)
	return n, false, err
}

// Sync makes the sandbox hold exactly changes on top of the workspace: new
// and changed files are written, and files changed before but not any more
// are copied back from the workspace. The copy is the commands' to change,
// so nothing a command made there is followed (sandbox.WriteBeneath).
func (sb *Sandbox) Sync(changes []Change) error {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	current := map[string]bool{}
	for _, c := range changes {
		current[c.Path] = true
		if prev, ok := sb.applied[c.Path]; ok && prev == c.New {
			continue
		}
		if err := sandbox.WriteBeneath(sb.Dir, c.Path, []byte(c.New), 0o644); err != nil {
			return err
		}
		sb.applied[c.Path] = c.New
	}
	for rel := range sb.applied {
		if current[rel] {
			continue
		}
		if err := sb.restore(rel); err != nil {
			return err
		}
		delete(sb.applied, rel)
	}
	return nil
}

// restore puts the workspace's own file back at rel, or removes rel if the
// workspace has none.
func (sb *Sandbox) restore(rel string) error {
	in, err := openRegular(filepath.Join(sb.root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNotRegular) {
		return sandbox.RemoveBeneath(sb.Dir, rel)
	}
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	return sandbox.WriteBeneath(sb.Dir, rel, data, fi.Mode().Perm())
}

// Close removes the sandbox and the run's cache.
func (sb *Sandbox) Close() error { return sandbox.RemoveTree(sb.base) }
