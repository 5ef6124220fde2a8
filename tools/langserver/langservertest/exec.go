// Package langservertest holds what tests of language servers need: a
// starter that runs a server as a plain process (tests only: production
// runs servers in the sandbox) and a LookPath over the servers found
// (tools/toolstest.LanguageServer finds them).
package langservertest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// process is a plain child process.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
}

func (p *process) Stdin() io.WriteCloser { return p.stdin }
func (p *process) Stdout() io.ReadCloser { return p.stdout }
func (p *process) Wait() error           { err := p.cmd.Wait(); killGroup(p.cmd.Process.Pid); return err }
func (p *process) Kill() error           { killGroup(p.cmd.Process.Pid); return p.cmd.Process.Kill() }
func (p *process) Pid() int              { return p.cmd.Process.Pid }

// Exec starts the server as a plain process in its root, with env added
// to the test's environment. Tests only.
func Exec(env ...string) langserver.Starter {
	return func(ctx context.Context, c langserver.Command) (langserver.Process, error) {
		if c.View != nil {
			return nil, errors.New("a plain process reads the workspace, not the run's staged view")
		}
		cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
		cmd.Dir = c.Root
		cmd.Env = append(os.Environ(), env...)
		ownGroup(cmd)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return &process{cmd: cmd, stdin: stdin, stdout: stdout}, nil
	}
}

// Paths is a LookPath for a Manager that finds what LookPath found.
func Paths(found map[string]string) func(string) (string, error) {
	return func(name string) (string, error) {
		if p, ok := found[name]; ok {
			return p, nil
		}
		return "", exec.ErrNotFound
	}
}

// GoEnv keeps gopls and the go command it runs out of the user's home
// (telemetry, config) while using the machine's build and module caches.
func GoEnv(t testing.TB) []string {
	home := toolstest.Home(t)
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod"}
	for _, v := range []string{"GOCACHE", "GOMODCACHE"} {
		if out, err := exec.Command("go", "env", v).Output(); err == nil {
			env = append(env, v+"="+strings.TrimSpace(string(out)))
		}
	}
	return env
}

// Logger logs to the test's log at debug level when AGENT_LSP_TEST_TRACE
// is set (what the server said), else nothing.
func Logger(t testing.TB) *slog.Logger {
	if os.Getenv("AGENT_LSP_TEST_TRACE") == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// Off is a starter that starts nothing: a test binary's runs get no
// language server unless a test starts one, whatever the developer's PATH
// holds (a run in a module would otherwise start their gopls).
func Off(context.Context, langserver.Command) (langserver.Process, error) {
	return nil, errors.New("language servers are off in this test unless it starts one")
}

// WriteProject writes files as toolstest.WriteTree does, with {root} in
// their text standing for the folder they are written to (a
// compile_commands.json names it), and returns that folder.
func WriteProject(t testing.TB, files map[string]string) string {
	t.Helper()
	root := toolstest.WriteTree(t, nil)
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(text, "{root}", root)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// GoModule is a module whose a.Add is called from two other packages, with
// an error in c from before any run (never the agent's).
var GoModule = map[string]string{
	"go.mod":   "module example.com/m\n\ngo 1.22\n",
	"a/a.go":   "package a\n\n// Add adds.\nfunc Add(x, y int) int { return x + y }\n",
	"b/b.go":   "package b\n\nimport \"example.com/m/a\"\n\nfunc Two() int {\n\treturn a.Add(1, 1)\n}\n",
	"c/c.go":   "package c\n\nimport \"example.com/m/a\"\n\nfunc Seven() int {\n\treturn a.Add(3, 4)\n}\n",
	"c/old.go": "package c\n\nvar broken int = \"before the run\"\n",
}

// Gopls is a Manager of the real gopls run as a plain process (tests only:
// the product runs it in the sandbox), closed with the test; skipped where
// gopls is missing, failed in CI (toolstest.LanguageServer).
func Gopls(t testing.TB) *langserver.Manager {
	gopls := toolstest.LanguageServer(t, "gopls")
	m := langserver.NewManager(langserver.Options{
		Start:    Exec(GoEnv(t)...),
		LookPath: Paths(map[string]string{"gopls": gopls}), Logger: Logger(t),
	})
	t.Cleanup(m.Close)
	return m
}
