//go:build unix

package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// What a repository's AGENTS.md can make of the system prompt, judged by the
// request the model gets. Each refusal has a control: the same words as a
// regular AGENTS.md do reach the model, or the link does lead to them.

// firstRequest builds and runs a one-turn task over root as every wire
// does (agentrun.Do) and returns the system prompt of the model's first
// request and the run's notices. A read that waits (a FIFO, a terminal)
// fails the test as a hang: this is a watchdog, not a measure of speed.
func firstRequest(t *testing.T, root string) (system string, notices []string) {
	t.Helper()
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	provider := llmtest.NewScripted(llmtest.Turn{Text: "ok"})
	var rec recorder
	done := make(chan error, 1)
	go func() {
		_, err := agentrun.Do(context.Background(), agentrun.Request{
			Provider: provider, View: ws, Policy: tools.NewPolicy(nil), OnEvent: rec.on, Prompt: "hi", History: &agent.History{},
		})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("building the run's prompt hung")
	}
	for _, e := range rec.events {
		if e.Kind == agent.EventNotice {
			notices = append(notices, e.Text)
		}
	}
	return provider.Requests()[0].System, notices
}

// hostileTree is a workspace and, beside it, a directory it must not reach
// holding a secret.
func hostileTree(t *testing.T) (root, secretFile, secret string) {
	t.Helper()
	secret = "ssh-ed25519 AAAA-the-users-key-" + t.Name()
	outside := toolstest.WriteTree(t, map[string]string{"id_ed25519": secret + "\n"})
	root = toolstest.WriteTree(t, map[string]string{"hello.py": "print('hi')\n", "docs/AGENTS.md": "Use tabs in Go files.\n"})
	return root, filepath.Join(outside, "id_ed25519"), secret
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestAnAGENTSMdLinkedOutOfTheWorkspaceNeverReachesTheModel(t *testing.T) {
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, root, secretFile string)
		why   string // in the notice
	}{
		{"an absolute link to a secret", func(t *testing.T, root, secretFile string) {
			symlink(t, secretFile, filepath.Join(root, "AGENTS.md"))
		}, "a link leads outside the root"},
		{"a relative link climbing out", func(t *testing.T, root, secretFile string) {
			rel, _ := filepath.Rel(root, secretFile)
			symlink(t, rel, filepath.Join(root, "AGENTS.md"))
		}, "a link leads outside the root"},
		{"a link through a linked directory", func(t *testing.T, root, secretFile string) {
			symlink(t, filepath.Dir(secretFile), filepath.Join(root, "vendor"))
			symlink(t, filepath.Join("vendor", filepath.Base(secretFile)), filepath.Join(root, "AGENTS.md"))
		}, "a link leads outside the root"},
		{"/dev/zero", func(t *testing.T, root, _ string) {
			symlink(t, "/dev/zero", filepath.Join(root, "AGENTS.md"))
		}, "a link leads outside the root"},
		{"a FIFO", func(t *testing.T, root, _ string) {
			if err := syscall.Mkfifo(filepath.Join(root, "AGENTS.md"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file (a named pipe)"},
		{"a directory", func(t *testing.T, root, _ string) {
			os.Mkdir(filepath.Join(root, "AGENTS.md"), 0o755)
		}, "not a regular file (a directory)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, secretFile, secret := hostileTree(t)
			c.plant(t, root, secretFile)
			system, notices := firstRequest(t, root)
			if strings.Contains(system, secret) || strings.Contains(system, "Project instructions") {
				t.Errorf("the model got the planted AGENTS.md:\n%s", system)
			}
			want := "project instructions left out: " + filepath.Join(root, "AGENTS.md") + ": " + c.why
			if len(notices) != 1 || !strings.HasPrefix(notices[0], want) {
				t.Errorf("notices %q, want one starting %q", notices, want)
			}
			if !strings.Contains(system, "The workspace root is "+root) {
				t.Errorf("the run lost more than AGENTS.md:\n%s", system)
			}
		})
	}
	t.Run("control: the link is real", func(t *testing.T) {
		root, secretFile, secret := hostileTree(t)
		symlink(t, secretFile, filepath.Join(root, "AGENTS.md"))
		if data, err := os.ReadFile(filepath.Join(root, "AGENTS.md")); err != nil || !strings.Contains(string(data), secret) {
			t.Fatalf("a naive read of the link does not find the secret (%q, %v): the test is blind", data, err)
		}
	})
	t.Run("control: the same words as a regular AGENTS.md", func(t *testing.T) {
		root, _, secret := hostileTree(t)
		toolstest.WriteFiles(t, root, map[string]string{"AGENTS.md": secret + "\n"})
		if system, notices := firstRequest(t, root); !strings.Contains(system, secret) || len(notices) != 0 {
			t.Fatalf("a regular AGENTS.md is not in the prompt (notices %q):\n%s", notices, system)
		}
	})
}

func TestAnAGENTSMdLinkedWithinTheWorkspaceIsFollowed(t *testing.T) {
	root, _, _ := hostileTree(t)
	symlink(t, filepath.Join("docs", "AGENTS.md"), filepath.Join(root, "AGENTS.md"))
	system, notices := firstRequest(t, root)
	if !strings.Contains(system, "## Project instructions (AGENTS.md)\n\nUse tabs in Go files.") || len(notices) != 0 {
		t.Fatalf("notices %q, prompt:\n%s", notices, system)
	}
}

func TestALongAGENTSMdIsCutAndTheUserTold(t *testing.T) {
	root, _, _ := hostileTree(t)
	long := "Start here.\n" + strings.Repeat("x", 40<<10) + "\nTHE-END-OF-A-LONG-FILE\n"
	toolstest.WriteFiles(t, root, map[string]string{"AGENTS.md": long})
	system, notices := firstRequest(t, root)
	if !strings.Contains(system, "Start here.") || strings.Contains(system, "THE-END-OF-A-LONG-FILE") || !strings.Contains(system, "(AGENTS.md cut here)") {
		t.Errorf("the prompt:\n%.300s…", system)
	}
	want := "project instructions cut: " + filepath.Join(root, "AGENTS.md") + " is larger than 32 KiB"
	if len(notices) != 1 || !strings.HasPrefix(notices[0], want) {
		t.Errorf("notices %q, want %q", notices, want)
	}
}
