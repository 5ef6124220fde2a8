package langserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"go.lsp.dev/jsonrpc2"
)

// fakeServer is a scripted language server speaking the real wire
// (Content-Length framed JSON-RPC) over in-process pipes. By default it
// answers initialize, pushes for each version of a document one error per
// line holding "BROKEN", and answers other requests with null; each field
// makes it misbehave one way.
type fakeServer struct {
	hangInit       bool          // never answers initialize
	initGate       chan struct{} // initialize waits until it is closed
	crashOnRequest bool          // ends its process at any request after initialize
	flood          int           // pushes this many diagnostics, to many files, on each change
	staleOnly      bool          // pushes only for the version before the one sent, and without a version
	pull           bool          // offers pull diagnostics instead of pushing
	renameTo       string
	timeout        time.Duration // the client's (default 2s)
	starts         atomic.Int32
	private        atomic.Int32 // starts on a run's staged view (Command.View)
}

var fakePids atomic.Int32

// pipeProcess is a fake server's process.
type pipeProcess struct {
	stdin  *io.PipeWriter
	stdout *io.PipeReader
	inR    *io.PipeReader
	outW   *io.PipeWriter
	pid    int
	once   sync.Once
	done   chan struct{}
	err    error
}

func (p *pipeProcess) Stdin() io.WriteCloser { return p.stdin }
func (p *pipeProcess) Stdout() io.ReadCloser { return p.stdout }
func (p *pipeProcess) Pid() int              { return p.pid }
func (p *pipeProcess) Wait() error           { <-p.done; return p.err }
func (p *pipeProcess) Kill() error           { p.exit(errors.New("killed")); return nil }
func (p *pipeProcess) exit(err error) {
	p.once.Do(func() {
		p.err = err
		p.inR.CloseWithError(io.EOF)
		p.outW.CloseWithError(io.EOF)
		close(p.done)
	})
}

type serverPipes struct {
	io.Reader
	io.WriteCloser
}

// start is the fake's Starter.
func (f *fakeServer) start(ctx context.Context, c langserver.Command) (langserver.Process, error) {
	f.starts.Add(1)
	if c.View != nil {
		f.private.Add(1)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipeProcess{stdin: inW, stdout: outR, inR: inR, outW: outW, pid: int(fakePids.Add(1)), done: make(chan struct{})}
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(serverPipes{inR, outW}))
	f.serve(conn, p.done, p.exit)
	go func() { <-p.done; conn.Close() }()
	return p, nil
}

// serve answers on conn until done; exit ends the process.
func (f *fakeServer) serve(conn jsonrpc2.Conn, done <-chan struct{}, exit func(error)) {
	var initialized atomic.Bool
	conn.Go(context.Background(), jsonrpc2.AsyncHandler(func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		return f.handle(ctx, conn, done, exit, &initialized, req.Method(), json.RawMessage(req.Params()), req.IsCall())
	}))
}

// serveStdio is the fake as a real process (TestMain, fakeProcessEnv):
// it answers on stdin and stdout until stdin ends.
func serveStdio() {
	done := make(chan struct{})
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(serverPipes{os.Stdin, os.Stdout}))
	(&fakeServer{pull: true}).serve(conn, done, func(err error) {
		if err != nil {
			os.Exit(2)
		}
		os.Exit(0)
	})
	<-conn.Done()
}

func (f *fakeServer) handle(ctx context.Context, conn jsonrpc2.Conn, done <-chan struct{}, exit func(error), initialized *atomic.Bool, method string, params json.RawMessage, isCall bool) (any, error) {
	switch {
	case method == "initialize":
		if f.hangInit {
			<-done
			return nil, errors.New("gone")
		}
		if f.initGate != nil {
			select {
			case <-f.initGate:
			case <-done:
				return nil, errors.New("gone")
			}
		}
		initialized.Store(true)
		caps := map[string]any{"textDocumentSync": 1, "renameProvider": true, "positionEncoding": "utf-8"}
		if f.pull {
			caps["diagnosticProvider"] = map[string]any{"interFileDependencies": true}
		}
		return map[string]any{"capabilities": caps}, nil
	case method == "exit":
		exit(nil)
		return nil, nil
	case isCall && f.crashOnRequest && initialized.Load():
		exit(errors.New("exit status 2"))
		return nil, errors.New("crashed")
	case method == "textDocument/didOpen" || method == "textDocument/didChange":
		var d struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version int32  `json:"version"`
				Text    string `json:"text"`
			} `json:"textDocument"`
			ContentChanges []struct {
				Text string `json:"text"`
			} `json:"contentChanges"`
		}
		_ = json.Unmarshal(params, &d)
		text := d.TextDocument.Text
		if len(d.ContentChanges) > 0 {
			text = d.ContentChanges[0].Text
		}
		if !f.pull {
			f.push(ctx, conn, d.TextDocument.URI, d.TextDocument.Version, text)
		}
		return nil, nil
	case method == "textDocument/diagnostic":
		return map[string]any{"kind": "full", "items": []any{}}, nil
	case method == "textDocument/rename":
		var r struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		}
		_ = json.Unmarshal(params, &r)
		target := r.TextDocument.URI
		if f.renameTo != "" {
			target = f.renameTo
		}
		return map[string]any{"changes": map[string]any{target: []any{map[string]any{
			"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}, "newText": "renamed "}}}}, nil
	}
	return nil, nil
}

// push says the diagnostics of one version as the fake is scripted to.
func (f *fakeServer) push(ctx context.Context, conn jsonrpc2.Conn, uri string, version int32, text string) {
	var diags []map[string]any
	for i, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "BROKEN") {
			diags = append(diags, diag(i, "BROKEN here"))
		}
	}
	switch {
	case f.staleOnly:
		_ = conn.Notify(ctx, "textDocument/publishDiagnostics", map[string]any{"uri": uri, "version": version - 1, "diagnostics": []any{diag(0, "stale error of the version before")}})
		_ = conn.Notify(ctx, "textDocument/publishDiagnostics", map[string]any{"uri": uri, "diagnostics": []any{diag(0, "stale error without a version")}})
		return
	case f.flood > 0:
		many := make([]map[string]any, f.flood)
		for i := range many {
			many[i] = diag(i, fmt.Sprintf("flood of version %d, #%d", version, i))
		}
		for i := range 200 {
			_ = conn.Notify(ctx, "textDocument/publishDiagnostics", map[string]any{"uri": uri + ".other" + strings.Repeat("x", i), "diagnostics": many[:100]})
		}
		_ = conn.Notify(ctx, "textDocument/publishDiagnostics", map[string]any{"uri": uri, "version": version, "diagnostics": append(diags, many...)})
		return
	}
	if diags == nil {
		diags = []map[string]any{}
	}
	_ = conn.Notify(ctx, "textDocument/publishDiagnostics", map[string]any{"uri": uri, "version": version, "diagnostics": diags})
}

func diag(line int, msg string) map[string]any {
	return map[string]any{"range": map[string]any{"start": map[string]int{"line": line, "character": 0}, "end": map[string]int{"line": line, "character": 1}},
		"severity": 1, "source": "fake", "message": msg}
}
