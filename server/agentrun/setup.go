package agentrun

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Models finds the model and builds its client the same way on every wire:
// each keeps one (NewModels) for its process (the CLI) or its connection
// (the language server, ACP), so that a model is found once, not per run
// or per session.
//
// A model is found only where the settings name none; what was found is
// kept for what finding it read (the provider, the server, the keys) and
// found again when that changes (runs that start together may each look).
// A failure is not kept: a local model server started since is found by
// the next run.
type Models struct {
	newProvider func(ctx context.Context, s config.Settings) (llm.Provider, error)
	find        func(ctx context.Context, s config.Settings) (config.Settings, error)

	mu    sync.Mutex          // guards found
	found map[findKey]foundAs // by what finding read
}

// findKey is what finding a model reads of the settings.
type findKey struct{ provider, baseURL, openAIKey, geminiKey string }

// foundAs is what finding a model fills in.
type foundAs struct{ provider, baseURL, model string }

// NewModels makes a wire's Models: newProvider builds the model client
// from the effective settings; find fills in the model when none is
// configured (a key's default, a local server's model), nil leaves the
// settings as they are.
func NewModels(newProvider func(ctx context.Context, s config.Settings) (llm.Provider, error), find func(ctx context.Context, s config.Settings) (config.Settings, error)) *Models {
	return &Models{newProvider: newProvider, find: find, found: map[findKey]foundAs{}}
}

// Find is s with its model filled in where it names none, as found
// before for the same provider, server and keys, else found now. find's
// errors come back as they are.
func (m *Models) Find(ctx context.Context, s config.Settings) (config.Settings, error) {
	if s.Model != "" || m.find == nil {
		return s, nil
	}
	key := findKey{s.Provider, s.BaseURL, s.OpenAIKey, s.GeminiKey}
	m.mu.Lock()
	f, ok := m.found[key]
	m.mu.Unlock()
	if !ok {
		found, err := m.find(ctx, s)
		if err != nil {
			return found, err
		}
		f = foundAs{found.Provider, found.BaseURL, found.Model}
		m.mu.Lock()
		m.found[key] = f
		m.mu.Unlock()
	}
	s.Provider, s.BaseURL, s.Model = f.provider, f.baseURL, f.model
	return s, nil
}

// Resolve is the settings a run uses — the model found (Find), validated —
// and their model client.
func (m *Models) Resolve(ctx context.Context, s config.Settings) (config.Settings, llm.Provider, error) {
	s, err := m.Find(ctx, s)
	if err != nil {
		return s, nil, err
	}
	if err := s.Validate(); err != nil {
		return s, nil, err
	}
	p, err := m.newProvider(ctx, s)
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
func OpenView(roots []tools.Root, current int, overlay tools.Overlay, s config.Settings, home string) (*tools.Workspace, error) {
	ws, err := tools.NewWorkspaceRoots(roots, current, overlay)
	if err != nil {
		return nil, err
	}
	SetSandbox(ws, s, home)
	return ws, nil
}

// SetSandbox lets ws's commands reach the network only where the user's
// own configuration opts in, root by root (home resolves its ~). Their
// homes, temp dirs and the run's build cache are the sandbox's own, made
// and removed with each command or run.
func SetSandbox(ws *tools.Workspace, s config.Settings, home string) {
	ws.SetSandbox(tools.SandboxOptions{
		Network:   s.SandboxNetwork.Allows(ws.Root(), home),
		NetworkIn: func(root string) bool { return s.SandboxNetwork.Allows(root, home) },
	})
}

// SandboxDir is where the language servers keep their caches between runs
// (NewLanguageServers), from the environment: under XDG_CACHE_HOME, else
// ~/.cache; "" where neither is known.
func SandboxDir(env func(string) string) string {
	if dir := env("XDG_CACHE_HOME"); dir != "" {
		return filepath.Join(dir, "agent-lsp", "sandbox")
	}
	if home := env("HOME"); home != "" {
		return filepath.Join(home, ".cache", "agent-lsp", "sandbox")
	}
	return ""
}
