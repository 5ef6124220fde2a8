package agentrun_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// refactorModule: a.Add and five packages calling it.
func refactorModule() map[string]string {
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": "package a\n\n// Add adds.\nfunc Add(x, y int) int { return x + y }\n",
	}
	for i := range 5 {
		files[fmt.Sprintf("p%d/p.go", i)] = fmt.Sprintf("package p%d\n\nimport \"example.com/m/a\"\n\nfunc F() int { return a.Add(%d, 1) }\n", i, i)
	}
	return files
}

// BenchmarkRefactorWithAndWithoutLanguageTools renames a function used in
// five packages, as a scripted model would: with the language tools (one
// rename, checked) and without (search, six edits, go build in the
// sandbox). It reports the model calls and the wall time of each run.
func BenchmarkRefactorWithAndWithoutLanguageTools(b *testing.B) {
	servers := langservertest.Gopls(b)
	root := toolstest.WriteTree(b, refactorModule()) // one project: its server stays warm across runs
	b.Run("language-tools", func(b *testing.B) {
		for range b.N {
			p := llmtest.NewScripted(
				llmtest.Turn{Calls: []llmtest.Call{call("rename", `{"symbol":"Add","path":"a/a.go","new_name":"Sum"}`)}},
				llmtest.Turn{Text: "Renamed Add to Sum."})
			r := requestIn(b, root, p)
			r.LSP = servers
			start := time.Now()
			out, err := agentrun.Do(context.Background(), r)
			b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/run")
			if err != nil || len(out.Proposal.Changes) != 6 || !strings.Contains(out.Check, "no new errors") {
				b.Fatalf("%v: %d changes, check %q", err, len(out.Proposal.Changes), out.Check)
			}
			b.ReportMetric(float64(len(p.Requests())), "model-calls/run")
		}
	})
	b.Run("no-language-tools", func(b *testing.B) {
		for range b.N {
			var edits []llmtest.Call
			edits = append(edits, call("edit_file", editArgs("a/a.go", "func Add(", "func Sum(")))
			for i := range 5 {
				edits = append(edits, call("edit_file", editArgs(fmt.Sprintf("p%d/p.go", i), "a.Add(", "a.Sum(")))
			}
			p := llmtest.NewScripted(
				llmtest.Turn{Calls: []llmtest.Call{call("search", `{"pattern":"\\bAdd\\("}`)}},
				llmtest.Turn{Calls: edits},
				llmtest.Turn{Calls: []llmtest.Call{call("execute_command", `{"command":"go build ./..."}`)}},
				llmtest.Turn{Text: "Renamed Add to Sum; it builds."})
			r := requestIn(b, root, p)
			r.Policy = tools.NewPolicy(tools.DefaultAllowlist)
			start := time.Now()
			out, err := agentrun.Do(context.Background(), r)
			b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/run")
			if err != nil || len(out.Proposal.Changes) != 6 {
				b.Fatalf("%v: %d changes", err, len(out.Proposal.Changes))
			}
			if built := toolResult(p.Requests(), 7); !strings.Contains(built, "[exit code: 0]") {
				b.Fatalf("go build: %s", built)
			}
			b.ReportMetric(float64(len(p.Requests())), "model-calls/run")
		}
	})
}

// BenchmarkStagedBuildFile is what a run's own server costs: a run that
// edits a file, on the warm shared gopls in the sandbox, and one that
// then stages go.mod (gopls started again for the run on its staged view,
// the files judged there). It reports the wall time of each run.
func BenchmarkStagedBuildFile(b *testing.B) {
	servers := sandboxedServer(b, "gopls")
	root := toolstest.WriteTree(b, refactorModule())
	edit := call("edit_file", editArgs("a/a.go", "// Add adds.", "// Add adds x and y."))
	for _, bc := range []struct {
		name  string
		calls []llmtest.Call
	}{
		{"edit", []llmtest.Call{edit}},
		{"edit-then-go.mod", []llmtest.Call{edit, call("edit_file", editArgs("go.mod", "go 1.22", "go 1.23"))}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for range b.N {
				var turns []llmtest.Turn
				for _, c := range bc.calls {
					turns = append(turns, llmtest.Turn{Calls: []llmtest.Call{c}})
				}
				p := llmtest.NewScripted(append(turns, llmtest.Turn{Text: "done"})...)
				r := requestIn(b, root, p)
				r.LSP = servers
				r.Approver = &allowAll{}
				start := time.Now()
				out, err := agentrun.Do(context.Background(), r)
				b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/run")
				if err != nil || !strings.Contains(out.Check, "no new errors") {
					b.Fatalf("%v: check %q", err, out.Check)
				}
			}
		})
	}
}
