package langserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
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
	// pushAfter delays each push that long: a slow server's answer comes
	// after the text it is for was closed, or replaced.
	pushAfter time.Duration
	// editOnRename answers rename by editing through workspace/applyEdit
	// (as a server's command does), and an empty rename.
	editOnRename bool
	// blockReferences answers references only once it is cancelled.
	blockReferences bool
	// unloaded offers gopls.packages and answers it with no package: the
	// server loaded nothing of the files.
	unloaded bool
	// jitter, when set, delays each push by what it says, out of order, and
	// pushes the document's previous text's diagnostics again after it (a
	// late answer for another text); tagged names the text's first line in
	// each diagnostic, to tell which text it was computed on.
	jitter func() time.Duration
	tagged bool
	// oddShapes pushes a broken text's diagnostics as some servers write
	// them: a code as a string, a message as markup, invalid UTF-8, a name
	// twice.
	oddShapes bool
	// busy begins work (a $/progress) at a document's opening and never
	// ends it, and outlines each document as one declaration per line.
	busy    bool
	timeout time.Duration // the client's (default 2s)
	starts  atomic.Int32
	private atomic.Int32 // starts on a run's staged view (Command.View)
	live    atomic.Int32 // processes running now
	maxLive atomic.Int32 // and at most

	mu        sync.Mutex
	received  []message       // every message, in the order handled
	cancelled map[string]bool // request ids cancelled by $/cancelRequest
	previous  map[string]sent // jitter: the text sent before the current one, by URI
	changed   chan struct{}   // closed and replaced on each message
}

// sent is a document's text at a version.
type sent struct {
	version int32
	text    string
}

// message is one message the fake received.
type message struct {
	Method string
	ID     string // a request's; "" for a notification
	Params json.RawMessage
}

// messages are what the fake received so far.
func (f *fakeServer) messages() []message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.received)
}

// record keeps a message and wakes those waiting on one.
func (f *fakeServer) record(m message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.received = append(f.received, m)
	if m.Method == "$/cancelRequest" {
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if f.cancelled == nil {
			f.cancelled = map[string]bool{}
		}
		f.cancelled[string(p.ID)] = true
	}
	if f.changed != nil {
		close(f.changed)
	}
	f.changed = make(chan struct{})
}

// waitCancelled waits until the request id is cancelled or done closes.
func (f *fakeServer) waitCancelled(id string, done <-chan struct{}) bool {
	for {
		f.mu.Lock()
		if f.cancelled[id] {
			f.mu.Unlock()
			return true
		}
		if f.changed == nil {
			f.changed = make(chan struct{})
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-done:
			return false
		}
	}
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
	n := f.live.Add(1)
	for old := f.maxLive.Load(); n > old && !f.maxLive.CompareAndSwap(old, n); old = f.maxLive.Load() {
	}
	go func() { <-p.done; f.live.Add(-1); conn.Close() }()
	return p, nil
}

// serve answers on conn until done; exit ends the process.
func (f *fakeServer) serve(conn jsonrpc2.Conn, done <-chan struct{}, exit func(error)) {
	var initialized atomic.Bool
	docs := &sync.Map{} // this process's documents' texts, by URI, as changed in wire order
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		// Recorded and held back in wire order; handled beside the reader.
		m := message{Method: strings.Clone(req.Method()), Params: append(json.RawMessage(nil), req.Params()...)}
		if req.IsCall() {
			m.ID = idText(req.ID())
		}
		f.record(m)
		if m.Method == "textDocument/didOpen" || m.Method == "textDocument/didChange" {
			uri, _, text := documentOf(m.Params)
			docs.Store(uri, text)
		}
		if f.busy && m.Method == "textDocument/didOpen" { // said before any later answer
			_ = conn.Notify(ctx, "$/progress", map[string]any{"token": "index", "value": map[string]any{"kind": "begin", "title": "indexing"}})
		}
		jsonrpc2.Async(ctx)
		return f.handle(ctx, conn, done, exit, &initialized, m, req.IsCall(), docs)
	})
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

func (f *fakeServer) handle(ctx context.Context, conn jsonrpc2.Conn, done <-chan struct{}, exit func(error), initialized *atomic.Bool, m message, isCall bool, docs *sync.Map) (any, error) {
	method, params := m.Method, m.Params
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
		caps := map[string]any{"textDocumentSync": 1, "renameProvider": true, "positionEncoding": "utf-8", "referencesProvider": true}
		if f.unloaded {
			caps["executeCommandProvider"] = map[string]any{"commands": []string{"gopls.packages"}}
		}
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
		uri, version, text := documentOf(params)
		switch {
		case f.pull:
		case f.jitter != nil:
			f.pushJittered(conn, done, uri, version, text)
		case f.pushAfter > 0:
			go func() {
				select {
				case <-time.After(f.pushAfter):
					f.push(context.Background(), conn, uri, version, text)
				case <-done:
				}
			}()
		default:
			f.push(ctx, conn, uri, version, text)
		}
		return nil, nil
	case method == "workspace/executeCommand" && f.unloaded:
		return map[string]any{"Packages": []any{}, "Module": map[string]any{}}, nil
	case method == "textDocument/documentSymbol" && f.busy:
		line := map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 5}}
		return []any{map[string]any{"name": "Thing", "kind": 12, "range": line, "selectionRange": line}}, nil
	case method == "textDocument/references" && f.blockReferences:
		if !f.waitCancelled(m.ID, done) {
			return nil, errors.New("gone")
		}
		return nil, jsonrpc2.NewError(-32800, "cancelled")
	case method == "textDocument/rename" && f.editOnRename:
		var r struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		}
		_ = json.Unmarshal(params, &r)
		edit := map[string]any{"changes": map[string]any{r.TextDocument.URI: []any{map[string]any{
			"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}, "newText": "server edit "}}}}
		var res struct {
			Applied       bool   `json:"applied"`
			FailureReason string `json:"failureReason"`
		}
		if _, err := conn.Call(ctx, "workspace/applyEdit", map[string]any{"edit": edit}, &res); err != nil || !res.Applied {
			return nil, fmt.Errorf("the client did not apply the edit: %v %s", err, res.FailureReason)
		}
		return nil, nil
	case method == "textDocument/diagnostic":
		var p struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		}
		_ = json.Unmarshal(params, &p)
		text, _ := docs.Load(p.TextDocument.URI)
		s, _ := text.(string)
		return map[string]any{"kind": "full", "items": f.diagnosticsOf(s)}, nil
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

// pushJittered pushes a version's diagnostics late, and the previous
// text's again after them.
func (f *fakeServer) pushJittered(conn jsonrpc2.Conn, done <-chan struct{}, uri string, version int32, text string) {
	f.mu.Lock()
	if f.previous == nil {
		f.previous = map[string]sent{}
	}
	prev, hadPrev := f.previous[uri]
	f.previous[uri] = sent{version, text}
	first, second := f.jitter(), f.jitter()
	f.mu.Unlock()
	later := func(d time.Duration, v int32, text string) {
		select {
		case <-time.After(d):
			f.push(context.Background(), conn, uri, v, text)
		case <-done:
		}
	}
	go later(first, version, text)
	if hadPrev {
		go later(first+second, prev.version, prev.text)
	}
}

// push says the diagnostics of one version as the fake is scripted to.
func (f *fakeServer) push(ctx context.Context, conn jsonrpc2.Conn, uri string, version int32, text string) {
	diags := f.diagnosticsOf(text)
	switch {
	case f.oddShapes && len(diags) > 0:
		raw := fmt.Sprintf(`{"uri":%q,"version":%d,"diagnostics":[`+
			`{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"severity":1,"code":"E123","message":"bad byte `+"\xff"+` here"},`+
			`{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"severity":1,"code":7,"code":8,"message":{"kind":"markdown","value":"in **markup**"}}]}`, uri, version)
		_ = conn.Notify(ctx, "textDocument/publishDiagnostics", jsonrpc2.RawMessage(raw))
		return
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
	_ = conn.Notify(ctx, "textDocument/publishDiagnostics", map[string]any{"uri": uri, "version": version, "diagnostics": diags})
}

// diagnosticsOf are the fake's diagnostics of a text: an error on each
// line holding BROKEN, at its column (in bytes: the fake says utf-8);
// tagged, each names the text's first line.
func (f *fakeServer) diagnosticsOf(text string) []map[string]any {
	diags := []map[string]any{}
	for i, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "BROKEN") {
			msg := "BROKEN here"
			if f.tagged {
				msg += " (text: " + strings.SplitN(text, "\n", 2)[0] + ")"
			}
			d := diag(i, msg)
			col := strings.Index(line, "BROKEN")
			d["range"] = map[string]any{"start": map[string]int{"line": i, "character": col}, "end": map[string]int{"line": i, "character": col + 6}}
			diags = append(diags, d)
		}
	}
	return diags
}

// documentOf reads a didOpen's or didChange's document and text.
func documentOf(params json.RawMessage) (uri string, version int32, text string) {
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
	text = d.TextDocument.Text
	if len(d.ContentChanges) > 0 {
		text = d.ContentChanges[0].Text
	}
	return d.TextDocument.URI, d.TextDocument.Version, text
}

func diag(line int, msg string) map[string]any {
	return map[string]any{"range": map[string]any{"start": map[string]int{"line": line, "character": 0}, "end": map[string]int{"line": line, "character": 1}},
		"severity": 1, "source": "fake", "message": msg}
}

// idText is a request id as JSON spells it ($/cancelRequest's id).
func idText(id jsonrpc2.ID) string {
	if n, ok := id.Number(); ok {
		return fmt.Sprint(n)
	}
	s, _ := id.StringValue()
	b, _ := json.Marshal(s)
	return string(b)
}
