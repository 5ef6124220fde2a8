//go:build linux

package sandbox

import (
	"bufio"
	"maps"
	"os"
	"path/filepath"
	"slices"
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

// BenchmarkLanguageServerStart starts each real server (as .ci/run
// installs them) through Start at this machine's level on its small
// project of languageServerWorkspaces, and reports how long initialize
// (init-ms) and the open file's symbols (symbols-ms) took to answer from
// the start. Cold: an empty cache for every start; warm: the cache of the
// starts before (one untimed first). gopls on this repository is
// BenchmarkGoplsStart.
func BenchmarkLanguageServerStart(b *testing.B) {
	for _, name := range slices.Sorted(maps.Keys(languageServerWorkspaces)) {
		ws := languageServerWorkspaces[name]
		for _, warm := range []bool{false, true} {
			b.Run(name+map[bool]string{false: "/cold", true: "/warm"}[warm], func(b *testing.B) {
				bin := toolstest.FindLanguageServer(name)
				if bin == "" {
					b.Skipf("no %s (make deps, .ci/run)", name)
				}
				root := toolstest.WriteTree(b, ws.files)
				argv := append([]string{bin}, ws.argv...)
				cache := b.TempDir()
				if warm {
					serverSession(b, root, cache, argv, ws.open, ws.lang, ws.files[ws.open])
				}
				var initTotal, symbolsTotal time.Duration
				for b.Loop() {
					if !warm {
						cache = b.TempDir()
					}
					i, s := serverSession(b, root, cache, argv, ws.open, ws.lang, ws.files[ws.open])
					initTotal += i
					symbolsTotal += s
				}
				b.ReportMetric(float64(initTotal.Microseconds())/1000/float64(b.N), "init-ms")
				b.ReportMetric(float64(symbolsTotal.Microseconds())/1000/float64(b.N), "symbols-ms")
			})
		}
	}
}

// serverSession starts argv on root with cache, initializes it, asks for
// open's symbols and kills it: the times from the start to the answers.
func serverSession(b *testing.B, root, cache string, argv []string, open, lang, text string) (initialized, answered time.Duration) {
	b.Helper()
	view := View{Root: root}
	if c := Probe(); c.Level == Full && c.Mounts == "overlay" {
		view = View{Root: root, Lower: root, Staged: b.TempDir()}
	}
	start := time.Now()
	p, err := Start(b.Context(), Spec{Argv: argv, View: view, Cache: cache, Env: os.Environ(), Limits: Limits{Memory: 1 << 30, Processes: 256}})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { p.Kill(); p.Wait() }()
	c := newLSPConn(b, p)
	c.initialize()
	initialized = time.Since(start)
	uri := fileURI(filepath.Join(p.Dir(), open))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": lang, "version": 1, "text": text}})
	symbols := c.call(2, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}})
	answered = time.Since(start)
	if !strings.Contains(strings.ToLower(string(symbols)), "hello") {
		b.Fatalf("documentSymbol answered %s", symbols)
	}
	return initialized, answered
}
