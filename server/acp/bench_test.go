package acp_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// BenchmarkInitialize is the initialize round trip through the SDK's
// client over pipes (the issue asks for < 15 ms).
func BenchmarkInitialize(b *testing.B) {
	f := newBenchFixture(b, nil, sdk.ClientCapabilities{})
	ctx := context.Background()
	for b.Loop() {
		if _, err := f.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchTurns is a scripted instant model's turn: a read, then the answer.
func benchTurns() []llmtest.Turn {
	return []llmtest.Turn{
		{Text: "Reading it.", Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.go"}`}}},
		{Text: "It is a small Go file declaring package a."},
	}
}

// BenchmarkTurnOverhead times the same scripted turn (an instant model, a
// read, a streamed answer) run by the agent directly, as the CLI does, and
// through ACP — session/prompt from the SDK's client over OS pipes, every
// update sent (the session is saved after the answer) — and reports the
// medians of both and their difference (the issue asks for < 1 ms). "fs" reads through the client's
// fs/read_text_file, one more round trip per read.
func BenchmarkTurnOverhead(b *testing.B) {
	for _, tc := range []struct {
		name string
		caps sdk.ClientCapabilities
	}{
		{"disk", sdk.ClientCapabilities{}},
		{"fs", sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			files := map[string]string{"a.go": "package a\n\nfunc A() int { return 1 }\n"}
			f := newBenchFixture(b, files, tc.caps)
			ws, err := tools.NewWorkspace(f.root, nil)
			if err != nil {
				b.Fatal(err)
			}
			settings, _, err := config.Load(ws.Root(), f.envFunc())
			if err != nil {
				b.Fatal(err)
			}
			memory := agent.NewMemory(b.TempDir())
			policy := tools.NewPolicy(tools.DefaultAllowlist)
			ctx := context.Background()
			var direct, viaACP []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := agentrun.Do(ctx, agentrun.Request{
					Settings: settings, Provider: llmtest.NewScripted(benchTurns()...), View: ws, Policy: policy,
					Notes: memory.ForRun(), Stream: true, OnEvent: func(agent.Event) {}, Prompt: "what is a.go?", History: &agent.History{},
				}); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				b.StopTimer()
				s, err := f.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: f.root, McpServers: []sdk.McpServer{}})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				mid2 := time.Now()
				resp, err := f.conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("what is a.go?")}})
				if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
					b.Fatal(resp, err)
				}
				direct = append(direct, mid.Sub(start))
				viaACP = append(viaACP, time.Since(mid2))
				// The session is saved after the answer; let that finish
				// before the next direct run is timed.
				b.StopTimer()
				saved := filepath.Join(agent.StateDir(f.envFunc(), f.root), "sessions", string(s.SessionId)+".jsonl")
				for _, err := os.Stat(saved); err != nil; _, err = os.Stat(saved) {
					time.Sleep(50 * time.Microsecond)
				}
				b.StartTimer()
			}
			// Medians: a shared machine's scheduling hiccups hit either side.
			d, v := median(direct), median(viaACP)
			b.ReportMetric(float64(d.Microseconds()), "agent-p50-µs")
			b.ReportMetric(float64(v.Microseconds()), "acp-p50-µs")
			b.ReportMetric(float64((v - d).Microseconds()), "overhead-p50-µs")
		})
	}
}

// benchFixture is the agent on pipes with a scripted in-process model.
type benchFixture struct {
	*fixture
}

func newBenchFixture(b *testing.B, files map[string]string, caps sdk.ClientCapabilities) *benchFixture {
	f := &fixture{t: b, root: toolstest.WriteTree(b, files), env: map[string]string{
		"XDG_CONFIG_HOME": b.TempDir(), "XDG_STATE_HOME": b.TempDir(), "HOME": b.TempDir(), "AGENT_LSP_MODEL": "scripted", "OPENAI_API_KEY": "unused",
	}}
	f.connect(fixtureOptions{caps: &caps, provider: func(context.Context, config.Settings) (llm.Provider, error) {
		return llmtest.NewScripted(benchTurns()...), nil
	}})
	return &benchFixture{f}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
