package acp

import (
	"bufio"
	"context"
	"os"
	"sync/atomic"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm"
)

// wireTurn is a turn whose updates go out as JSON-RPC lines on an OS pipe,
// read and counted on the other end as a client would read them.
type wireTurn struct {
	*turn
	lines, bytes atomic.Int64
}

func newWireTurn(b *testing.B) *wireTurn {
	fromClient, toAgent, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	fromAgent, toClient, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	a := newAgent(Options{})
	a.conn = sdk.NewAgentSideConnection(a, &lockedWriter{w: toClient}, fromClient)
	s := &session{id: "bench", busy: make(chan struct{}, 1), history: &agent.History{}}
	w := &wireTurn{turn: &turn{a: a, s: s, n: 1, ctx: context.Background(), calls: map[string]*shownCall{}, shown: map[string]string{}, failed: map[int]bool{}}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := bufio.NewReaderSize(fromAgent, 1<<20)
		for {
			line, err := r.ReadSlice('\n')
			w.bytes.Add(int64(len(line)))
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return
			}
			w.lines.Add(1)
		}
	}()
	b.Cleanup(func() {
		toAgent.Close()
		toClient.Close()
		<-done
		fromAgent.Close()
		fromClient.Close()
	})
	return w
}

// BenchmarkUsageUpdate is the context meter's cost per model call: the
// usage_update made, encoded and written to the client's pipe (the issue
// asks for < 1 ms).
func BenchmarkUsageUpdate(b *testing.B) {
	w := newWireTurn(b)
	w.price, w.priced = llm.PriceOf("gpt-4.1-mini")
	e := agent.Event{Kind: agent.EventUsage, Usage: llm.Usage{InputTokens: 12_000, OutputTokens: 300, CachedTokens: 8_000}, Context: 12_300, Window: 1_000_000}
	for b.Loop() {
		w.event(e)
	}
	b.ReportMetric(float64(w.lines.Load())/float64(b.N), "lines/op")
}
