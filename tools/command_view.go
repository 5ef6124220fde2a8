package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// SandboxOptions say how a workspace's commands are isolated.
type SandboxOptions struct {
	// Dir keeps each workspace's private home and build cache between runs
	// (default: the user cache dir's agent-lsp/sandbox).
	Dir string
	// Network lets commands reach the network: the user's own opt-in.
	Network bool
	// Cache, when set, replaces the workspace's own build cache (workspaces
	// may share one; never the user's own GOCACHE, which commands could poison).
	Cache string
	// ReadOnly adds directories commands may read (toolchains elsewhere).
	ReadOnly []string
	Limits   sandbox.Limits
	// Env is the environment commands start from, before the sandbox's
	// allowlist (default: this process's).
	Env []string
}

// SetSandbox configures the isolation of this workspace's commands.
func (w *Workspace) SetSandbox(o SandboxOptions) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sandboxOpts = o
}

// commandSpec prepares a command's run: the view of the workspace with the
// staged changes (made at the first command, then kept in step) and the
// workspace's private home and cache.
func (w *Workspace) commandSpec(ctx context.Context, command string) (sandbox.Spec, error) {
	changes := w.Changes()
	caps := sandbox.Probe()
	w.mu.Lock()
	v, opts := w.view, w.sandboxOpts
	w.mu.Unlock()
	if v == nil {
		made, err := w.newView(ctx, caps, changes)
		if err != nil {
			return sandbox.Spec{}, err
		}
		w.mu.Lock()
		if w.view == nil {
			w.view = made
		} else {
			made.Close() // another command made one meanwhile: use that
		}
		v = w.view
		w.mu.Unlock()
	}
	if err := v.Sync(changes); err != nil {
		return sandbox.Spec{}, err
	}
	home, cache, err := w.privateDirs(opts.Dir)
	if err != nil {
		return sandbox.Spec{}, err
	}
	if opts.Cache != "" {
		cache = opts.Cache
		if err := os.MkdirAll(cache, 0o700); err != nil {
			return sandbox.Spec{}, err
		}
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	return sandbox.Spec{
		Command: command, View: v.view(), Home: home, Cache: cache, Env: env,
		Network: opts.Network, ReadOnly: opts.ReadOnly, Limits: opts.Limits,
		GitDir: filepath.Join(w.root, ".git"),
	}, nil
}

// SandboxLevel is the isolation in force for this workspace's commands.
func SandboxLevel() sandbox.Caps { return sandbox.Probe() }

// commandView is what commands see of the workspace during one run: the
// workspace with the run's staged changes. It is made at the first command
// and kept in step with the changes; Close removes it.
type commandView interface {
	view() sandbox.View
	Sync(changes []Change) error
	Close() error
}

// newView makes the view the sandbox level wants: an overlay upper dir
// (set-up independent of the workspace's size) where overlays mount, else a
// copy of the workspace.
func (w *Workspace) newView(ctx context.Context, caps sandbox.Caps, changes []Change) (commandView, error) {
	if caps.Level == sandbox.Full && caps.Mounts == "overlay" {
		return newOverlayView(w.root, changes)
	}
	sb, err := NewSandbox(ctx, w, changes)
	if err != nil {
		return nil, err
	}
	if caps.Level == sandbox.Full {
		// The copy is bound on the root; .git is bound read-only from the
		// original over a placeholder.
		if err := gitPlaceholder(w.root, sb.Dir); err != nil {
			sb.Close()
			return nil, err
		}
	}
	return copyView{sb}, nil
}

type copyView struct{ *Sandbox }

func (c copyView) view() sandbox.View { return sandbox.View{Root: c.root, Copy: c.Dir} }

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

// overlayView is an overlay's upper dir holding the staged changes and
// whatever commands wrote during the run.
type overlayView struct {
	root, dir, upper, work string

	mu      sync.Mutex        // guards applied
	applied map[string]string // rel path → content written into upper
}

func newOverlayView(root string, changes []Change) (*overlayView, error) {
	dir, err := os.MkdirTemp("", "agent-lsp-view-")
	if err != nil {
		return nil, err
	}
	v := &overlayView{root: root, dir: dir, upper: filepath.Join(dir, "upper"), work: filepath.Join(dir, "work"), applied: map[string]string{}}
	for _, d := range []string{v.upper, v.work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			os.RemoveAll(dir)
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
	return sandbox.View{Root: v.root, Lower: v.root, Upper: v.upper, Work: v.work}
}

// Sync makes the upper dir hold exactly changes: files written, and files no
// longer changed removed so the workspace shows through.
func (v *overlayView) Sync(changes []Change) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	current := map[string]bool{}
	for _, c := range changes {
		current[c.Path] = true
		if prev, ok := v.applied[c.Path]; ok && prev == c.New {
			continue
		}
		dst := filepath.Join(v.upper, filepath.FromSlash(c.Path))
		if err := os.RemoveAll(dst); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, []byte(c.New), 0o644); err != nil {
			return err
		}
		v.applied[c.Path] = c.New
	}
	for rel := range v.applied {
		if !current[rel] {
			if err := os.RemoveAll(filepath.Join(v.upper, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			delete(v.applied, rel)
		}
	}
	return nil
}

func (v *overlayView) Close() error { return os.RemoveAll(v.dir) }

// privateDirs are a workspace's home and cache inside the sandbox, kept
// between runs (a warm build cache) and never the user's own: a cache the
// agent's commands write could be poisoned for the user's later builds.
func (w *Workspace) privateDirs(base string) (home, cache string, err error) {
	if base == "" {
		userCache, err := os.UserCacheDir()
		if err != nil {
			return "", "", err
		}
		base = filepath.Join(userCache, "agent-lsp", "sandbox")
	}
	sum := sha256.Sum256([]byte(w.root))
	dir := filepath.Join(base, filepath.Base(w.root)+"-"+hex.EncodeToString(sum[:6]))
	home, cache = filepath.Join(dir, "home"), filepath.Join(dir, "cache")
	for _, d := range []string{home, cache} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return "", "", err
		}
	}
	return home, cache, nil
}
