package langserver_test

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// p50 reports the median of ds as ms/p50.
func p50(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "ms/p50")
}

// editAdd stages a/a.go with its signature changed (odd i) or back.
func editAdd(b *testing.B, ws *tools.Workspace, i int) string {
	before, _ := ws.Read("a/a.go")
	text := langservertest.GoModule["a/a.go"]
	if i%2 == 1 {
		text = strings.Replace(text, "x, y int", "x, y, z int", 1)
	}
	if _, err := ws.Stage("a/a.go", text); err != nil {
		b.Fatal(err)
	}
	return before.Text
}

// goWorkspace is langservertest.GoModule without its old error, so that go build passes
// before the edit as the language server's check does.
func goWorkspace(b *testing.B) *tools.Workspace {
	files := maps.Clone(langservertest.GoModule)
	delete(files, "c/old.go")
	ws, err := tools.NewWorkspace(toolstest.WriteTree(b, files), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	return ws
}

// BenchmarkGoplsDiagnosticsAfterEdit: the new errors of one edit (a
// signature change breaking two callers, then undone) with a warm gopls,
// as the edit's result gets them. Compare BenchmarkGoBuildAfterEdit.
func BenchmarkGoplsDiagnosticsAfterEdit(b *testing.B) {
	ws := goWorkspace(b)
	s := langserver.NewSession(langservertest.Gopls(b), ws, langserver.WithOverrides(langserver.KnownServers(), nil))
	defer s.Close()
	abs := filepath.Join(ws.Root(), "a", "a.go")
	s.AfterEdit(context.Background(), abs, editAdd(b, ws, 1)) // warm: started, loaded, baseline taken
	var took []time.Duration
	b.ResetTimer()
	for i := range b.N {
		before := editAdd(b, ws, i)
		start := time.Now()
		r := s.AfterEdit(context.Background(), abs, before)
		took = append(took, time.Since(start))
		if testing.Verbose() {
			b.Logf("edit %d: %s", i, took[len(took)-1])
		}
		if want := 2 * (i % 2); len(r.New) != want {
			b.Fatalf("edit %d: %d new errors, want %d: %s", i, len(r.New), want, r.Text())
		}
	}
	p50(b, took)
}

// BenchmarkGoBuildAfterEdit: `go build ./...` in the sandbox for the same
// edit, the check a model without a language server would run.
func BenchmarkGoBuildAfterEdit(b *testing.B) {
	ws := goWorkspace(b)
	ctx := context.Background()
	editAdd(b, ws, 1)
	if _, err := ws.RunCommand(ctx, "go build ./...", time.Minute, 100_000); err != nil { // warm: the view and the cache
		b.Fatal(err)
	}
	var took []time.Duration
	b.ResetTimer()
	for i := range b.N {
		editAdd(b, ws, i)
		start := time.Now()
		out, err := ws.RunCommand(ctx, "go build ./...", time.Minute, 100_000)
		took = append(took, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		if failed := out.ExitCode != 0; failed != (i%2 == 1) {
			b.Fatalf("edit %d: exit %d\n%s", i, out.ExitCode, out.Output)
		}
	}
	p50(b, took)
}

// BenchmarkThousandRuns: 1,000 runs, each an edit diagnosed by a scripted
// server running as a real process, idle stops between bursts: at most
// one server process at a time, none left after Close.
func BenchmarkThousandRuns(b *testing.B) {
	for range b.N {
		marker := "langserver-" + toolstest.Marker()
		m, servers := processManager(b, marker, 5*time.Millisecond)
		root := toolstest.WriteTree(b, map[string]string{"fake.toml": "", "a.fake": ""})
		ws, err := tools.NewWorkspace(root, nil)
		if err != nil {
			b.Fatal(err)
		}
		most := 0
		for i := range 1000 {
			oneRun(b, m, ws, servers, "a.fake")
			if i%100 == 0 {
				most = max(most, len(toolstest.Alive(marker)))
				time.Sleep(20 * time.Millisecond) // idle: the server stops
			}
		}
		m.Close()
		ws.Close()
		left := len(toolstest.Alive(marker))
		b.ReportMetric(float64(most), "servers/max")
		b.ReportMetric(float64(left), "servers/left")
		if left != 0 || most > 1 {
			b.Fatalf("%d server processes left, %d at most", left, most)
		}
	}
}
