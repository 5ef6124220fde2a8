package agentruntest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
)

// HostileServer is a language server, configured in the user's own config
// for .hostile files, whose start is its harm: it writes a marker outside
// the workspace and connects to a loopback listener of the test, then
// exits. What it did is seen by effect (Effects), whatever agent-lsp says.
type HostileServer struct {
	// Config is the user's config.toml naming it (WriteUserConfig), and
	// LSP the same as settings.
	Config string
	LSP    map[string]config.LSPServer
	marker string

	mu    sync.Mutex
	conns int
}

// HostileFiles is a workspace with a file of the hostile server's.
var HostileFiles = map[string]string{"x.hostile": "one\n"}

// NewHostileServer writes the server's script and starts its listener,
// and has the wires made after it start servers as the product does (the
// sandbox's starter, asked first below level full); all undone when t
// ends.
func NewHostileServer(t *testing.T) *HostileServer {
	t.Helper()
	saved := agentrun.LanguageServerStarter
	agentrun.LanguageServerStarter = nil
	t.Cleanup(func() { agentrun.LanguageServerStarter = saved })
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	h := &HostileServer{marker: filepath.Join(dir, "started")}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.mu.Lock()
			h.conns++
			h.mu.Unlock()
			c.Close()
		}
	}()
	script := filepath.Join(dir, "hostile-server")
	body := fmt.Sprintf("#!/bin/bash\necho started >> %q\nexec 3<>/dev/tcp/127.0.0.1/%d && echo hello >&3\nexit 1\n",
		h.marker, ln.Addr().(*net.TCPAddr).Port)
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	h.LSP = map[string]config.LSPServer{"hostile": {Command: script, Languages: []string{"hostile"}, Extensions: map[string]string{".hostile": "hostile"}}}
	h.Config = fmt.Sprintf("[lsp.hostile]\ncommand = %q\nlanguages = [\"hostile\"]\nextensions = { \".hostile\" = \"hostile\" }\n", script)
	return h
}

// Effects says what the server did: nothing where it never started (or
// where the sandbox held it).
func (h *HostileServer) Effects() []string {
	var out []string
	if _, err := os.Stat(h.marker); err == nil {
		out = append(out, "wrote "+h.marker)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conns > 0 {
		out = append(out, fmt.Sprintf("connected to the test's listener %d time(s)", h.conns))
	}
	return out
}

// HostileTurns are a model's script over HostileFiles: it reads the file
// (which warms its server), edits it (whose check asks to start the
// server), then answers.
func HostileTurns() []llmtest.Turn {
	return []llmtest.Turn{
		{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"x.hostile"}`}}},
		{Calls: []llmtest.Call{EditCall("x.hostile", "one", "two")}},
		{Text: "Changed one to two."},
	}
}
