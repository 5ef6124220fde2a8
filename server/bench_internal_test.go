package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/tools"
)

// BenchmarkCodeAction10kLines measures textDocument/codeAction server-side on
// a 10,000-line open file, over a 20-line selection in its middle, with a
// proposal pending and a run going (so the decisions are listed too), and
// reports the p99 latency.
func BenchmarkCodeAction10kLines(b *testing.B) {
	s := New(Options{Env: func(string) string { return "" }, CacheDir: b.TempDir()})
	s.lifecycle.setInitialized()
	s.caps.Store(&clientCaps{applyEdit: true})
	u := uri.File("/tmp/agent-lsp-bench/big.go")
	var text strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&text, "\tx%d := compute(%d) // a typical line of code\n", i, i)
	}
	if err := s.docs.Open(protocol.TextDocumentItem{URI: u, Version: 1, Text: text.String()}); err != nil {
		b.Fatal(err)
	}
	done := newRun("s", "rename x", "rename x", config.Settings{}, nil)
	s.runs.add(done, false)
	done.st = runCompleted
	s.runs.propose(done, []tools.Change{{Path: "big.go", AbsPath: "/tmp/agent-lsp-bench/big.go", Existed: true}})
	s.runs.add(newRun("s", "still going", "still going", config.Settings{}, nil), false)
	params, _ := json.Marshal(map[string]any{
		"textDocument": map[string]any{"uri": u},
		"range":        map[string]any{"start": map[string]any{"line": 5000, "character": 0}, "end": map[string]any{"line": 5020, "character": 0}},
		"context": map[string]any{"diagnostics": []any{map[string]any{
			"range": map[string]any{"start": map[string]any{"line": 5001, "character": 1}, "end": map[string]any{"line": 5001, "character": 4}}, "message": "x5001 declared and not used"}}},
	})
	ctx := context.Background()
	var durations []time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := s.codeAction(ctx, params)
		durations = append(durations, time.Since(start))
		if err != nil || len(res.([]protocol.CommandOrCodeAction)) != 11 {
			b.Fatalf("%v %v", err, res)
		}
	}
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkCodeActionTwentyPendingProposals measures code action listing with
// 20 pending proposals (each changing a 500-line file on disk) and a
// question waiting, for a client that takes applyEdit (the actions carry
// commands) and one that does not (ALE: the newest proposal's edit is
// computed into its action), and reports the p99 latency.
func BenchmarkCodeActionTwentyPendingProposals(b *testing.B) {
	for _, c := range []struct {
		name string
		caps clientCaps
	}{{"applyEdit", clientCaps{applyEdit: true, documentChanges: true, createFiles: true}}, {"ale", clientCaps{}}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			s := New(Options{Env: func(string) string { return "" }, CacheDir: b.TempDir()})
			s.lifecycle.setInitialized()
			s.caps.Store(&c.caps)
			for i := range 20 {
				var orig, changed strings.Builder
				for l := range 500 {
					fmt.Fprintf(&orig, "line %d of file %d\n", l, i)
					if l%50 == 7 {
						fmt.Fprintf(&changed, "LINE %d of file %d, changed\n", l, i)
					} else {
						fmt.Fprintf(&changed, "line %d of file %d\n", l, i)
					}
				}
				path := filepath.Join(dir, fmt.Sprintf("f%d.txt", i))
				if err := os.WriteFile(path, []byte(orig.String()), 0o644); err != nil {
					b.Fatal(err)
				}
				r := newRun("s", "change", "change", config.Settings{}, nil)
				s.runs.add(r, false)
				r.st = runCompleted
				s.runs.propose(r, []tools.Change{{Path: filepath.Base(path), AbsPath: path, Existed: true, Original: orig.String(), New: changed.String()}})
			}
			s.approvals.add("run-21", "make test", false)
			u := uri.File(filepath.Join(dir, "f0.txt"))
			params, _ := json.Marshal(map[string]any{
				"textDocument": map[string]any{"uri": u},
				"range":        map[string]any{"start": map[string]any{"line": 3, "character": 0}, "end": map[string]any{"line": 3, "character": 0}},
				"context":      map[string]any{"diagnostics": []any{}},
			})
			ctx := context.Background()
			var durations []time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := s.codeAction(ctx, params)
				durations = append(durations, time.Since(start))
				if err != nil || len(res.([]protocol.CommandOrCodeAction)) < 6 {
					b.Fatalf("%v %v", err, res)
				}
			}
			slices.Sort(durations)
			b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds()), "p99-µs")
		})
	}
}
