//go:build linux

package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// BenchmarkGoplsStart starts gopls on this repository, through Start at
// this machine's level and as a plain process for comparison, and reports
// how long initialize took to answer (init-ms) and a hover in
// cmd/agent-lsp/main.go, which needs the package and its imports loaded
// and type-checked (hover-ms). Cold: an empty cache for every start;
// warm: the cache of the starts before (one untimed first). Slow (half a
// minute a cold start on two cores): run it with -benchtime=2x -timeout=30m.
func BenchmarkGoplsStart(b *testing.B) {
	gopls := toolstest.FindLanguageServer("gopls")
	if gopls == "" {
		b.Skip("no gopls (go install golang.org/x/tools/gopls@v0.23.0)")
	}
	root := toolstest.ModuleRoot()
	root, _ = filepath.EvalSymlinks(root)
	line, char := hoverTarget(b, filepath.Join(root, "cmd", "agent-lsp", "main.go"), "sandbox.Sweep()")
	for _, how := range []string{"sandbox", "plain"} {
		for _, warm := range []bool{false, true} {
			name := how + "/cold"
			if warm {
				name = how + "/warm"
			}
			b.Run(name, func(b *testing.B) {
				cache := b.TempDir()
				if warm {
					goplsSession(b, how, gopls, root, cache, line, char)
				}
				var initTotal, hoverTotal time.Duration
				for b.Loop() {
					if !warm {
						cache = b.TempDir()
					}
					i, h := goplsSession(b, how, gopls, root, cache, line, char)
					initTotal += i
					hoverTotal += h
				}
				b.ReportMetric(float64(initTotal.Milliseconds())/float64(b.N), "init-ms")
				b.ReportMetric(float64(hoverTotal.Milliseconds())/float64(b.N), "hover-ms")
			})
		}
	}
}

// goplsSession starts gopls (how: "sandbox" through Start, "plain" as a
// plain process with the cache as its XDG_CACHE_HOME and GOCACHE),
// initializes it on root, hovers at line:char of cmd/agent-lsp/main.go and
// kills it (gopls answers shutdown only once it has diagnosed the whole
// workspace, a minute more here): the times from the start to the two
// answers.
func goplsSession(b *testing.B, how, gopls, root, cache string, line, char int) (initialized, hovered time.Duration) {
	b.Helper()
	start := time.Now()
	var p *Process
	var err error
	if how == "sandbox" {
		view := View{Root: root}
		if c := Probe(); c.Level == Full && c.Mounts == "overlay" {
			view = View{Root: root, Lower: root, Staged: b.TempDir()}
		}
		p, err = Start(b.Context(), Spec{Argv: []string{gopls}, View: view, Cache: cache, Env: os.Environ()})
	} else {
		env := append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(cache, "xdg"), "GOCACHE="+filepath.Join(cache, "go-build"))
		p, err = startPlain(World{Level: None, Server: true, Argv: []string{gopls}, Dir: root, Env: env}, nil, func() {})
	}
	if err != nil {
		b.Fatal(err)
	}
	defer p.Kill()
	c := newLSPConn(b, p)
	c.initialize()
	initialized = time.Since(start)
	uri := fileURI(filepath.Join(p.Dir(), "cmd", "agent-lsp", "main.go"))
	text, err := os.ReadFile(filepath.Join(root, "cmd", "agent-lsp", "main.go"))
	if err != nil {
		b.Fatal(err)
	}
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": string(text)}})
	hover := c.call(2, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]int{"line": line, "character": char}})
	hovered = time.Since(start)
	if !strings.Contains(string(hover), "Sweep") {
		b.Fatalf("hover answered %s", hover)
	}
	p.Kill()
	p.Wait()
	return initialized, hovered
}

// hoverTarget is the 0-based line and character of the name after the
// first "." of the first occurrence of text in file.
func hoverTarget(b *testing.B, file, text string) (int, int) {
	f, err := os.Open(file)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 0; sc.Scan(); n++ {
		if i := strings.Index(sc.Text(), text); i >= 0 {
			return n, i + strings.Index(text, ".") + 1
		}
	}
	b.Fatalf("%s has no %q", file, text)
	return 0, 0
}
