package documents

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// BenchmarkDidChange1MB applies 10,000 incremental edits (typing, one
// character each, spread over the file) to a 1 MB document, and reports edits
// per second and the heap in use afterwards.
func BenchmarkDidChange1MB(b *testing.B) {
	line := strings.Repeat("x", 99) + "\n"
	initial := strings.Repeat(line, 10_000) // 1,000,000 bytes
	u := uri.File("/tmp/agent-lsp-bench/doc.txt")
	changes := make([]*protocol.DidChangeTextDocumentParams, 10_000)
	for i := range changes {
		l := uint32(i * 7919 % 10_000)
		p := protocol.Position{Line: l, Character: 10}
		changes[i] = &protocol.DidChangeTextDocumentParams{
			ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: p, End: p}, Text: "y"}},
		}
		changes[i].TextDocument.URI = u
		changes[i].TextDocument.Version = int32(i + 2)
	}
	var edits int
	var elapsed time.Duration
	for b.Loop() {
		docs := New()
		docs.byPath["/tmp/agent-lsp-bench/doc.txt"] = &document{uri: u, path: "/tmp/agent-lsp-bench/doc.txt", buf: []byte(initial), version: 1}
		start := time.Now()
		for _, c := range changes {
			if _, err := docs.Change(c, UTF16); err != nil {
				b.Fatal(err)
			}
		}
		elapsed += time.Since(start)
		edits += len(changes)
		if d := docs.byPath["/tmp/agent-lsp-bench/doc.txt"]; len(d.buf) != len(initial)+len(changes) {
			b.Fatalf("length %d", len(d.buf))
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(edits)/elapsed.Seconds(), "edits/s")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
}
