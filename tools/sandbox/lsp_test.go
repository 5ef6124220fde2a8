//go:build linux

package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// lspConn speaks the LSP wire (Content-Length framed JSON-RPC) to a server
// started through Start: just enough to initialize it, ask it one thing
// and shut it down. Requests the server makes are answered with null.
type lspConn struct {
	t    testing.TB
	p    *Process
	msgs chan lspMessage
	errs chan error
}

type lspMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

// lspTimeout bounds one answer: a cold gopls loading this repository on a
// busy machine takes seconds.
const lspTimeout = 2 * time.Minute

func newLSPConn(t testing.TB, p *Process) *lspConn {
	c := &lspConn{t: t, p: p, msgs: make(chan lspMessage, 64), errs: make(chan error, 1)}
	go c.read(bufio.NewReader(p.Stdout()))
	return c
}

func (c *lspConn) read(in *bufio.Reader) {
	defer close(c.msgs)
	for {
		length := -1
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				c.errs <- err
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		if length < 0 {
			c.errs <- fmt.Errorf("a message without Content-Length")
			return
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(in, body); err != nil {
			c.errs <- err
			return
		}
		var m lspMessage
		if err := json.Unmarshal(body, &m); err != nil {
			c.errs <- fmt.Errorf("%v: %s", err, body)
			return
		}
		c.msgs <- m
	}
}

func (c *lspConn) send(msg map[string]any) {
	c.t.Helper()
	msg["jsonrpc"] = "2.0"
	body, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := fmt.Fprintf(c.p.Stdin(), "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatalf("writing to the server: %v", err)
	}
}

func (c *lspConn) notify(method string, params any) {
	c.t.Helper()
	c.send(map[string]any{"method": method, "params": params})
}

// call sends a request and returns its result, answering what the server
// asks meanwhile.
func (c *lspConn) call(id int, method string, params any) json.RawMessage {
	c.t.Helper()
	c.send(map[string]any{"id": id, "method": method, "params": params})
	deadline := time.After(lspTimeout)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("%s: the server's output ended: %v", method, <-c.errs)
			}
			switch {
			case m.Method == "window/logMessage" || m.Method == "window/showMessage":
				c.t.Logf("%s %s", m.Method, m.Params) // shown when the test fails
			case m.Method != "" && m.ID != nil: // the server's request
				c.send(map[string]any{"id": m.ID, "result": nil})
			case m.Method == "" && string(m.ID) == strconv.Itoa(id):
				if m.Error != nil {
					c.t.Fatalf("%s: %s", method, m.Error)
				}
				return m.Result
			}
		case <-deadline:
			c.t.Fatalf("%s: no answer in %s", method, lspTimeout)
		}
	}
}

// initialize initializes the server on the workspace it sees (its Dir)
// and returns the result's capabilities.
func (c *lspConn) initialize() map[string]json.RawMessage {
	c.t.Helper()
	root := fileURI(c.p.Dir())
	res := c.call(1, "initialize", map[string]any{
		"processId": nil, "rootUri": root, // agent-lsp's pid means nothing in the server's pid namespace
		"workspaceFolders": []map[string]string{{"uri": root, "name": filepath.Base(c.p.Dir())}},
		"capabilities":     map[string]any{"workspace": map[string]any{"workspaceFolders": true, "configuration": true}},
	})
	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(res, &init); err != nil || len(init.Capabilities) == 0 {
		c.t.Fatalf("initialize answered %s (%v)", res, err)
	}
	c.notify("initialized", map[string]any{})
	return init.Capabilities
}

// shutdown ends the server as an editor does, and returns how it exited.
func (c *lspConn) shutdown(id int) Result {
	c.t.Helper()
	c.call(id, "shutdown", nil)
	c.notify("exit", nil)
	c.p.Stdin().Close()
	done := make(chan struct{})
	var res Result
	var err error
	go func() {
		res, err = c.p.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(lspTimeout):
		c.p.Kill()
		<-done
		c.t.Errorf("the server did not exit after exit")
	}
	if err != nil {
		c.t.Errorf("Wait: %v", err)
	}
	return res
}

func fileURI(path string) string { return (&url.URL{Scheme: "file", Path: path}).String() }

// languageServerWorkspaces are a small project for each real server.
var languageServerWorkspaces = map[string]struct {
	argv  []string
	files map[string]string
	open  string // the file opened and asked for its symbols
	lang  string
}{
	"gopls":                      {nil, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": "package main\n\nfunc Hello() string { return \"hi\" }\n\nfunc main() { _ = Hello() }\n"}, "main.go", "go"},
	"pyright-langserver":         {[]string{"--stdio"}, map[string]string{"pyproject.toml": "[project]\nname = \"m\"\n", "m.py": "def hello() -> str:\n    return 'hi'\n"}, "m.py", "python"},
	"typescript-language-server": {[]string{"--stdio"}, map[string]string{"package.json": "{\"name\": \"m\"}\n", "tsconfig.json": "{}\n", "m.ts": "export function hello(): string { return 'hi' }\n"}, "m.ts", "typescript"},
	"clangd":                     {[]string{"--log=error"}, map[string]string{"compile_commands.json": "[]\n", "m.c": "int hello(void) { return 1; }\n"}, "m.c", "c"},
}

// Each real language server (installed as .ci/run installs them) starts
// through Start at this machine's level, answers initialize and the open
// file's symbols on the workspace it sees read-only, and exits when told.
func TestRealServersInSandbox(t *testing.T) {
	for name, ws := range languageServerWorkspaces {
		t.Run(name, func(t *testing.T) {
			bin := toolstest.LanguageServer(t, name)
			root := toolstest.WriteTree(t, ws.files)
			p, _ := startServer(t, root, serverView(t, root, nil), append([]string{bin}, ws.argv...)...)
			c := newLSPConn(t, p)
			c.initialize()
			uri := fileURI(filepath.Join(p.Dir(), ws.open))
			c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": ws.lang, "version": 1, "text": ws.files[ws.open]}})
			symbols := c.call(2, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}})
			if !strings.Contains(strings.ToLower(string(symbols)), "hello") {
				t.Errorf("documentSymbol answered %s", symbols)
			}
			if res := c.shutdown(3); res.ExitCode != 0 {
				t.Errorf("exit code %d", res.ExitCode)
			}
		})
	}
}
