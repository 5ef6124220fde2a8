package server_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/mcp/mcptest"
)

// BenchmarkStartToInitializeWithMCP is BenchmarkStartToInitialize with and
// without MCP servers in the user's config (three of the test server, one
// of which would take a second to start): servers start on a run's first
// turn, so initialize takes the same time either way, and none has started
// when it answers.
func BenchmarkStartToInitializeWithMCP(b *testing.B) {
	bin, server := servertest.Binary(b), mcptest.TestServer(b)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`
	for _, configured := range []bool{false, true} {
		name := map[bool]string{false: "none", true: "three-servers"}[configured]
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				config, marks := b.TempDir(), b.TempDir()
				if configured {
					var toml strings.Builder
					for i := range 3 {
						fmt.Fprintf(&toml, "[mcp.servers.s%d]\ncommand = %q\nenv = { MCPTEST_DIR = %q }\n", i, server, marks)
					}
					toml.WriteString("[mcp.servers.slow]\ncommand = \"/bin/sh\"\nargs = [\"-c\", \"sleep 1; exec " + server + "\"]\n")
					os.MkdirAll(filepath.Join(config, "agent-lsp"), 0o755)
					os.WriteFile(filepath.Join(config, "agent-lsp", "config.toml"), []byte(toml.String()), 0o644)
				}
				cmd := exec.Command(bin)
				cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+config, "XDG_STATE_HOME="+b.TempDir(), "XDG_CACHE_HOME="+b.TempDir())
				stdin, _ := cmd.StdinPipe()
				stdout, _ := cmd.StdoutPipe()
				start := time.Now()
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body)
				line, err := bufio.NewReader(stdout).ReadString('\n')
				if err != nil || !strings.HasPrefix(line, "Content-Length:") {
					b.Fatalf("%q %v", line, err)
				}
				total += time.Since(start)
				if _, err := os.Stat(filepath.Join(marks, "starts")); err == nil {
					b.Fatal("an MCP server started at initialize")
				}
				stdin.Close()
				cmd.Wait()
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms-to-initialize")
		})
	}
}
