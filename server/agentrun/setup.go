package agentrun

import (
	"context"
	"path/filepath"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Models finds the model and builds its client; each wire passes the
// process's.
type Models struct {
	// NewProvider builds the model client from the effective settings.
	NewProvider func(ctx context.Context, s config.Settings) (llm.Provider, error)
	// FindModel fills in the model when none is configured (a key's
	// default, a local server's model); nil leaves the settings as they are.
	FindModel func(ctx context.Context, s config.Settings) (config.Settings, error)
}

// Resolve is the settings a run uses — the model found, validated — and
// their model client. FindModel's errors come back as they are.
func (m Models) Resolve(ctx context.Context, s config.Settings) (config.Settings, llm.Provider, error) {
	if m.FindModel != nil {
		var err error
		if s, err = m.FindModel(ctx, s); err != nil {
			return s, nil, err
		}
	}
	if err := s.Validate(); err != nil {
		return s, nil, err
	}
	p, err := m.NewProvider(ctx, s)
	return s, p, err
}

// Policy is a workspace's command policy from its settings: the built-in
// allowlist (unless no_default_allowlist) and the configured one. A wire
// keeps one per workspace, so "always allow" lasts.
func Policy(s config.Settings) *tools.Policy {
	return tools.NewPolicy(s.EffectiveAllowlist(tools.DefaultAllowlist))
}

// RefreshPolicy gives p the allowlist of settings that changed since it was
// made, keeping what the user allowed for good: every wire refreshes its
// policies this way when it reads the settings again.
func RefreshPolicy(p *tools.Policy, s config.Settings) {
	p.SetAllowlist(s.EffectiveAllowlist(tools.DefaultAllowlist))
}

// OpenView opens a run's view of roots, starting in roots[current], reading
// through overlay (the client's buffers; nil: disk), with its commands'
// sandbox (SetSandbox).
func OpenView(roots []tools.Root, current int, overlay tools.Overlay, s config.Settings, sandboxDir, home string) (*tools.Workspace, error) {
	ws, err := tools.NewWorkspaceRoots(roots, current, overlay)
	if err != nil {
		return nil, err
	}
	SetSandbox(ws, s, sandboxDir, home)
	return ws, nil
}

// SetSandbox sets where ws's commands keep their private homes and caches
// (dir; "" is the user's cache dir), and lets them reach the network only
// where the user's own configuration opts in, root by root.
func SetSandbox(ws *tools.Workspace, s config.Settings, dir, home string) {
	ws.SetSandbox(tools.SandboxOptions{
		Dir:       dir,
		Network:   s.SandboxNetwork.Allows(ws.Root(), home),
		NetworkIn: func(root string) bool { return s.SandboxNetwork.Allows(root, home) },
	})
}

// SandboxDir is where the sandbox keeps each workspace's private home and
// build cache, from the environment: under XDG_CACHE_HOME, else
// ~/.cache; "" for the default (the user cache dir).
func SandboxDir(env func(string) string) string {
	if dir := env("XDG_CACHE_HOME"); dir != "" {
		return filepath.Join(dir, "agent-lsp", "sandbox")
	}
	if home := env("HOME"); home != "" {
		return filepath.Join(home, ".cache", "agent-lsp", "sandbox")
	}
	return ""
}
