package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/mcp/mcptest"
)

// fixture is a pool with the test server configured as "test".
type fixture struct {
	t       *testing.T
	pool    *Pool
	dir     string // the server's MCPTEST_DIR
	cfg     ServerConfig
	changed chan string
}

func newFixture(t *testing.T, env map[string]string, edit func(*ServerConfig)) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir(), changed: make(chan string, 16)}
	f.cfg = ServerConfig{
		Name: "test", Origin: "user", ReadsEnv: true, Enabled: true, Root: t.TempDir(),
		Command: mcptest.TestServer(t), Env: map[string]string{"MCPTEST_DIR": f.dir},
		Timeout: 20 * time.Second,
	}
	if edit != nil {
		edit(&f.cfg)
	}
	f.pool = NewPool(Options{
		Env:      func(k string) string { return env[k] },
		OnChange: func(s string) { f.changed <- s },
	})
	t.Cleanup(func() { f.pool.Close() })
	return f
}

// waitChange waits for OnChange calls until done holds; each start and
// list change calls it.
func (f *fixture) waitChange(what string, done func() bool) {
	f.t.Helper()
	timeout := time.After(10 * time.Second)
	for !done() {
		select {
		case <-f.changed:
		case <-timeout:
			f.t.Fatal(what)
		}
	}
}

// tools starts the source's servers and returns their tools by name, with
// the notices.
func (f *fixture) tools(src *Source) (map[string]tools.Tool, []string) {
	f.t.Helper()
	ts, notices := src.Tools(context.Background())
	byName := map[string]tools.Tool{}
	for _, t := range ts {
		byName[t.Name()] = t
	}
	return byName, notices
}

// call runs a tool through a registry, as the agent does: arguments are
// validated against its schema first.
func call(t *testing.T, ctx context.Context, tool tools.Tool, args string) tools.Result {
	t.Helper()
	reg, err := tools.NewRegistry(tool)
	if err != nil {
		t.Fatal(err)
	}
	res, err := reg.Execute(ctx, tool.Name(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s: %v", tool.Name(), err)
	}
	return res
}

// starts lists the pids the server was started with.
func (f *fixture) starts() []string {
	data, _ := os.ReadFile(filepath.Join(f.dir, "starts"))
	return strings.Fields(string(data))
}

// recorder answers approvals with a fixed decision and records the requests.
type recorder struct {
	mu       sync.Mutex
	decision tools.Decision
	asked    []tools.ApprovalRequest
}

func (r *recorder) Approve(_ context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, req)
	return r.decision, nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.asked)
}

// waitFor polls for a condition the server brings about in its own time
// (a file it writes), up to a bound.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startHTTP runs the test server over Streamable HTTP and returns its URL.
func startHTTP(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command(mcptest.TestServer(t), "-http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "MCPTEST_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("test server said %q", line)
	}
	return url
}
