package testrun_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/testrun"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// BenchmarkSelectThisRepository: the tests a change of tools/tool.go
// touches in this repository: the first selection, which reads the build
// graph (go list in the sandbox), and a later one on the same changes,
// which does not (graph-ms and select-ms, medians).
func BenchmarkSelectThisRepository(b *testing.B) {
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	f, _ := ws.Read("tools/tool.go")
	if _, err := ws.Stage("tools/tool.go", f.Text+"\n// touched\n"); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var graph, selection []time.Duration
	var packages int
	for range b.N {
		r := testrun.New(ws, testrun.Options{})
		start := time.Now()
		suites, why, err := r.Select(ctx)
		graph = append(graph, time.Since(start))
		if err != nil || len(suites) == 0 {
			b.Fatalf("%v %s", err, why)
		}
		packages = len(suites[0].Targets)
		start = time.Now()
		if _, _, err := r.Select(ctx); err != nil {
			b.Fatal(err)
		}
		selection = append(selection, time.Since(start))
	}
	b.ReportMetric(ms(median(graph)), "graph-ms")
	b.ReportMetric(ms(median(selection)), "select-ms")
	b.ReportMetric(float64(packages), "packages")
}

// chainModule is a module of n packages, each importing the one before
// it and tested.
func chainModule(n int) map[string]string {
	files := map[string]string{"go.mod": "module example.com/chain\n\ngo 1.22\n"}
	for i := range n {
		p := fmt.Sprintf("p%02d", i)
		body := fmt.Sprintf("package %s\n\n// V is %d.\nfunc V() int { return %d }\n", p, i, i)
		if i > 0 {
			prev := fmt.Sprintf("p%02d", i-1)
			body = fmt.Sprintf("package %s\n\nimport \"example.com/chain/%s\"\n\n// V is %d.\nfunc V() int { return %s.V() + 1 }\n", p, prev, i, prev)
		}
		files[p+"/"+p+".go"] = body
		files[p+"/"+p+"_test.go"] = fmt.Sprintf("package %s\n\nimport \"testing\"\n\nfunc TestV(t *testing.T) {\n\tif V() != %d {\n\t\tt.Fatal(V())\n\t}\n}\n", p, i)
	}
	return files
}

// BenchmarkRunEndTestsTwentyPackages: on a module of 20 packages with a
// warm build cache, a change of p10 (which p11 … p19 import): the run-end
// tests (selection and run) beside go test of the same 10 packages typed
// by hand in the sandbox (runend-ms, byhand-ms, medians; added-ms the
// difference).
func BenchmarkRunEndTestsTwentyPackages(b *testing.B) {
	ws, err := tools.NewWorkspace(toolstest.WriteTree(b, chainModule(20)), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	ctx := context.Background()
	if res, err := ws.RunCommand(ctx, "go test ./...", 5*time.Minute, 1<<20); err != nil || res.ExitCode != 0 {
		b.Fatalf("warming: %v %s", err, res.Output)
	}
	var pkgs []string
	for i := 10; i < 20; i++ {
		pkgs = append(pkgs, fmt.Sprintf("./p%02d", i))
	}
	var runEnd, byHand []time.Duration
	for i := range b.N {
		f, _ := ws.Read("p10/p10.go")
		if _, err := ws.Stage("p10/p10.go", f.Text+fmt.Sprintf("\n// touched %d\n", i)); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		v := testrun.New(ws, testrun.Options{}).Run(ctx)
		runEnd = append(runEnd, time.Since(start))
		if v.Kind != testrun.Passed || v.Suites != 10 {
			b.Fatalf("%s", v.Text())
		}
		start = time.Now()
		res, err := ws.RunCommand(ctx, "go test -count=1 "+strings.Join(pkgs, " "), 5*time.Minute, 1<<20)
		byHand = append(byHand, time.Since(start))
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("%v %s", err, res.Output)
		}
	}
	b.ReportMetric(ms(median(runEnd)), "runend-ms")
	b.ReportMetric(ms(median(byHand)), "byhand-ms")
	b.ReportMetric(ms(median(runEnd))-ms(median(byHand)), "added-ms")
}
