package agentrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// SandboxStarter starts each language server in the sandbox (sandbox.Start):
// the workspace read-only at its own path, a cache of its own under dir
// that only that server writes and that outlives it (its next start is
// warm), its memory bounded alone and, with the others, by one group.
func SandboxStarter(dir string) langserver.Starter {
	group := sync.OnceValue(func() *sandbox.Group {
		g, err := sandbox.NewGroup(sandbox.Limits{Memory: langserver.DefaultMemoryTotal})
		if err != nil {
			return nil // each server is still bounded alone
		}
		return g
	})
	return func(ctx context.Context, c langserver.Command) (langserver.Process, error) {
		cache, err := serverCache(dir, c)
		if err != nil {
			return nil, err
		}
		view := sandbox.View{Root: c.Root}
		if tools.SandboxLevel().Level == sandbox.Full {
			// The workspace over an empty layer of staged files: the run's
			// documents reach the server as open documents, not files.
			view.Lower, view.Staged = c.Root, cache+".staged"
			if err := os.MkdirAll(view.Staged, 0o700); err != nil {
				return nil, err
			}
		}
		p, err := sandbox.Start(ctx, sandbox.Spec{
			Argv: c.Argv, View: view, Cache: cache, Env: os.Environ(),
			Limits: sandbox.Limits{Memory: c.Memory}, Group: group(), Stderr: io.Discard,
		})
		if err != nil {
			return nil, err
		}
		if p.Dir() != c.Root {
			p.Kill()
			return nil, fmt.Errorf("the sandbox shows %s at %s, not at its own path", c.Root, p.Dir())
		}
		return sandboxedServer{p}, nil
	}
}

// serverCache is c's own cache dir: one per server and project root.
func serverCache(dir string, c langserver.Command) (string, error) {
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(base, "agent-lsp", "sandbox")
	}
	sum := sha256.Sum256([]byte(c.Root))
	cache := filepath.Join(dir, "lsp", c.Name+"-"+hex.EncodeToString(sum[:8]))
	return cache, os.MkdirAll(cache, 0o700)
}

// sandboxedServer is a sandbox.Process as the langserver package takes it.
type sandboxedServer struct{ *sandbox.Process }

func (p sandboxedServer) Wait() error {
	_, err := p.Process.Wait()
	return err
}

func (p sandboxedServer) Kill() error {
	p.Process.Kill()
	return nil
}

// askBeforeStarting makes s ask the run's approver before a server starts
// where the sandbox's level holds nothing of what it runs (below full).
func askBeforeStarting(s *langserver.Session, approver tools.Approver) {
	caps := tools.SandboxLevel()
	if !caps.ServerNeedsApproval() {
		return
	}
	ask := func(ctx context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
		if approver == nil {
			return tools.Deny, nil
		}
		return approver.Approve(ctx, req)
	}
	s.AskBeforeStarting(ask, "build scripts, its interpreter, cgo: at sandbox level "+string(caps.Level)+" nothing holds them in")
}
