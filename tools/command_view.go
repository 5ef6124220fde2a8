package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// CommandsSee is what a command sees of the workspace: the one statement
// of it, in the system prompt and in execute_command's description alike.
const CommandsSee = "Commands run in a sandboxed view of the workspace: the files as the editor shows them, unsaved buffers included, with your staged changes applied on top, so tests run on exactly what you and the user see. What a command writes stays in that view for the rest of this run and never reaches the user's files; to change a file, stage it with edit_file or write_file."

// holds reports whether the file abs is in f's view: in f, or in a root
// nested in it.
func (f *folder) holds(abs string) bool { return abs != "" && f.paths.within(f.root, abs) }

// inView is changes as f's view holds them: those of files in it, by
// their paths relative to f.
func (f *folder) inView(changes []Change) []Change {
	out := make([]Change, 0, len(changes))
	for _, c := range changes {
		if f.holds(c.AbsPath) {
			c.Path = f.paths.rel(f.root, c.AbsPath)
			out = append(out, c)
		}
	}
	return out
}

// SandboxLevel is the isolation in force for this workspace's commands.
func SandboxLevel() sandbox.Caps { return sandbox.Probe() }

// PrepareSandbox finds the level and has the helper of the first command
// started ahead, so that command's set-up costs no more than the next ones.
func PrepareSandbox() sandbox.Caps { return sandbox.Prepare() }

// commandView is what commands see of one root during one run: the root
// with the run's staged changes. It is made at the first command run there
// and kept in step with the changes; Close removes it.
type commandView interface {
	view() sandbox.View
	// cache is the run's own cache dir: what its commands build is trusted
	// by no later run (a build cache maps inputs to outputs that a command
	// could forge), so it goes with the view.
	cache() string
	Sync(changes []Change) error
	Close() error
}

// newView makes the view of root f the sandbox level wants: an overlay
// (set-up independent of the workspace's size) where overlays mount, else a
// copy of the root.
func (c *Commands) newView(ctx context.Context, caps sandbox.Caps, f *folder, changes []Change) (commandView, error) {
	if caps.Level == sandbox.Full && caps.Mounts == "overlay" {
		return newOverlayView(f.root, changes, caps.Bounded)
	}
	sb, err := newSandbox(ctx, c.tree, f, changes)
	if err != nil {
		return nil, err
	}
	if caps.Level == sandbox.Full {
		// The copy is bound on the root; .git is bound read-only from the
		// original over a placeholder.
		if err := gitPlaceholder(f.root, sb.Dir); err != nil {
			sb.Close()
			return nil, err
		}
	}
	return copyView{sb}, nil
}

type copyView struct{ *Sandbox }

func (c copyView) view() sandbox.View { return sandbox.View{Root: c.root, Copy: c.Dir} }

func (c copyView) cache() string { return c.cacheDir }

func gitPlaceholder(root, dir string) error {
	fi, err := os.Lstat(filepath.Join(root, ".git"))
	switch {
	case err != nil:
		return nil
	case fi.IsDir():
		return os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	}
	return os.WriteFile(filepath.Join(dir, ".git"), nil, 0o644)
}

// overlayView is what the overlay of a run's commands is made of: staged
// holds the staged changes and is written by the host only (a lower layer:
// commands never write it); upper holds what the run's commands wrote, and
// the host only ever removes things there, never following what a command
// made; cache is the run's cache. Where the level bounds a view's writes,
// upper, work and cache are in a tmpfs of the run's (layer, see
// sandbox.Layer); else they are beside staged, under one temporary dir.
type overlayView struct {
	root, dir, staged string
	layer             *sandbox.Layer // nil: upper, work and cacheDir are host dirs
	upper, work       string
	cacheDir          string

	mu      sync.Mutex        // guards applied
	applied map[string]string // rel path → content written into staged
}

func newOverlayView(root string, changes []Change, bounded bool) (*overlayView, error) {
	dir, err := sandbox.MkdirTemp("view")
	if err != nil {
		return nil, err
	}
	v := &overlayView{root: root, dir: dir, staged: filepath.Join(dir, "staged"), applied: map[string]string{}}
	dirs := []string{v.staged}
	if bounded {
		v.layer = sandbox.NewLayer()
	} else {
		v.upper, v.work, v.cacheDir = filepath.Join(dir, "upper"), filepath.Join(dir, "work"), filepath.Join(dir, "cache")
		dirs = append(dirs, v.upper, v.work, v.cacheDir)
	}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o700); err != nil {
			sandbox.RemoveTree(dir)
			return nil, err
		}
	}
	if err := v.Sync(changes); err != nil {
		v.Close()
		return nil, err
	}
	return v, nil
}

func (v *overlayView) view() sandbox.View {
	return sandbox.View{Root: v.root, Lower: v.root, Staged: v.staged, Upper: v.upper, Work: v.work, Layer: v.layer}
}

// cache is the host dir of the run's cache, "" where the layer holds it.
func (v *overlayView) cache() string { return v.cacheDir }

// withUpper runs fn with the upper dir, if there is one yet.
func (v *overlayView) withUpper(fn func(upper string) error) error {
	if v.layer != nil {
		return v.layer.Within("upper", fn)
	}
	return fn(v.upper)
}

// Sync makes the staged layer hold exactly changes, and takes out of the
// upper dir what a command wrote at a path staged since (or no longer
// staged), so the staged text shows through.
func (v *overlayView) Sync(changes []Change) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	current := map[string]bool{}
	for _, c := range changes {
		current[c.Path] = true
		if prev, ok := v.applied[c.Path]; ok && prev == c.New {
			continue
		}
		if err := sandbox.WriteBeneath(v.staged, c.Path, []byte(c.New), 0o644); err != nil {
			return err
		}
		if err := v.unshadow(c.Path); err != nil {
			return err
		}
		v.applied[c.Path] = c.New
	}
	for rel := range v.applied {
		if current[rel] {
			continue
		}
		if err := sandbox.RemoveBeneath(v.staged, rel); err != nil {
			return err
		}
		if err := v.unshadow(rel); err != nil {
			return err
		}
		delete(v.applied, rel)
	}
	return nil
}

// unshadow removes from the upper dir what a command left at rel or in
// place of one of its directories (a link, a file, a whiteout), never
// following it.
func (v *overlayView) unshadow(rel string) error {
	return v.withUpper(func(upper string) error {
		parts := strings.Split(rel, "/")
		for i := 1; i < len(parts); i++ {
			fi, err := os.Lstat(filepath.Join(upper, filepath.FromSlash(strings.Join(parts[:i], "/"))))
			if err != nil {
				break // nothing of the command's on this path below here
			}
			if !fi.IsDir() {
				return sandbox.RemoveBeneath(upper, strings.Join(parts[:i], "/"))
			}
		}
		err := sandbox.RemoveBeneath(upper, rel)
		if errors.Is(err, sandbox.ErrLinkInView) {
			return nil // a parent changed under us: gone the next time
		}
		return err
	})
}

// Close removes the view: the layer goes with the last command using it.
func (v *overlayView) Close() error {
	if v.layer != nil {
		v.layer.Close()
	}
	return sandbox.RemoveTree(v.dir)
}
