package mcp

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/mcp/mcptest"
)

// benchFixture is a pool with the test server, for benchmarks.
func benchPool(b *testing.B) (*Pool, ServerConfig) {
	b.Helper()
	p := NewPool(Options{})
	b.Cleanup(func() { p.Close() })
	cfg := ServerConfig{Name: "test", Origin: "user", Enabled: true, Root: b.TempDir(), Command: mcptest.TestServer(b),
		AllowedTools: []string{"greet"}, Timeout: 20 * time.Second}
	return p, cfg
}

func greetTool(b *testing.B, p *Pool, cfg ServerConfig) (*tools.Registry, tools.Tool) {
	ts, _ := p.Source([]ServerConfig{cfg}, SourceOptions{}).Tools(context.Background())
	for _, t := range ts {
		if t.Name() == "mcp__test__greet" {
			reg, err := tools.NewRegistry(t)
			if err != nil {
				b.Fatal(err)
			}
			return reg, t
		}
	}
	b.Fatal("no greet tool")
	return nil, nil
}

// BenchmarkCallRoundTrip calls the test server's greet over stdio, once
// through the SDK's session directly and once as the agent does (registry
// validation, the allowed check, the call, rendering), and reports both and
// our overhead per call.
func BenchmarkCallRoundTrip(b *testing.B) {
	p, cfg := benchPool(b)
	reg, _ := greetTool(b, p, cfg)
	sess := p.lookup(cfg).conn.sess
	args := json.RawMessage(`{"name":"Ada","times":2}`)
	ctx := context.Background()
	var sdkTime, ours time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := sess.CallTool(ctx, &sdk.CallToolParams{Name: "greet", Arguments: args}); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		res, err := reg.Execute(ctx, "mcp__test__greet", args)
		if err != nil || res.IsError {
			b.Fatal(err, res.Text)
		}
		sdkTime += mid.Sub(start)
		ours += time.Since(mid)
	}
	n := float64(b.N)
	b.ReportMetric(float64(sdkTime.Microseconds())/n, "sdk-µs/call")
	b.ReportMetric(float64(ours.Microseconds())/n, "ours-µs/call")
	b.ReportMetric(float64((ours-sdkTime).Microseconds())/n, "overhead-µs/call")
}

// BenchmarkFirstCall starts the server and makes the first call, as a run
// does (a fresh pool, the source's start and listing, the call), against
// the SDK alone doing the same (start, initialize, list, call); the
// difference is what we add to the server's own start-up.
func BenchmarkFirstCall(b *testing.B) {
	args := json.RawMessage(`{"name":"Ada"}`)
	ctx := context.Background()
	var sdkTime, ours time.Duration
	for b.Loop() {
		start := time.Now()
		client := sdk.NewClient(&sdk.Implementation{Name: "bench"}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
		sess, err := client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(mcptest.TestServer(b))}, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range sess.Tools(ctx, nil) {
			if err != nil {
				b.Fatal(err)
			}
		}
		if _, err := sess.CallTool(ctx, &sdk.CallToolParams{Name: "greet", Arguments: args}); err != nil {
			b.Fatal(err)
		}
		sdkTime += time.Since(start)
		b.StopTimer()
		sess.Close()
		p, cfg := benchPool(b)
		b.StartTimer()

		start = time.Now()
		reg, _ := greetTool(b, p, cfg)
		if res, err := reg.Execute(ctx, "mcp__test__greet", args); err != nil || res.IsError {
			b.Fatal(err, res.Text)
		}
		ours += time.Since(start)
		b.StopTimer()
		p.Close()
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(float64(sdkTime.Microseconds())/n/1000, "sdk-ms/first-call")
	b.ReportMetric(float64(ours.Microseconds())/n/1000, "ours-ms/first-call")
	b.ReportMetric(float64((ours-sdkTime).Microseconds())/n/1000, "overhead-ms/first-call")
}
