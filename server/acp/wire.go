package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// The SDK reads lines of at most 10 MiB and drops the connection on a
// longer one; lines that do not parse it logs and leaves unanswered. The
// filter in front of it answers both itself, as JSON-RPC asks.
const (
	maxMessage = 10<<20 - 1 // the longest line the SDK's reader accepts
	maxProbe   = 64 << 20   // longer lines are skipped without reading their id
)

// lockedWriter serialises whole messages: the SDK writes each message with
// one Write, and the filter's own answers go through the same lock.
type lockedWriter struct {
	mu     sync.Mutex // guards w
	w      io.Writer
	compat *compat // completes the answer to initialize; nil leaves it
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	out := p
	if l.compat != nil {
		out = l.compat.completed(p)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// filterReader is what the SDK reads: the lines of r that are JSON-RPC
// messages, filtered on the SDK's own reading goroutine (no extra hop). A
// line that is not JSON gets a parse error (-32700), one that is not a
// request, notification or response (a batch, a non-string method, no
// method and no id) an invalid request (-32600), and one too long for the
// SDK an invalid request naming the limit; none reaches the SDK. Nothing
// is read before ready is closed.
type filterReader struct {
	r       *bufio.Reader
	out     io.Writer // for the answers, shared with the SDK's writes
	log     *slog.Logger
	ready   <-chan struct{}
	compat  *compat // renames session/delete for the SDK; nil leaves it
	pending []byte  // the rest of the line being handed over
	err     error   // the input's end, once reached
}

func newFilterReader(r io.Reader, out io.Writer, log *slog.Logger, ready <-chan struct{}) *filterReader {
	return &filterReader{r: bufio.NewReaderSize(r, 64<<10), out: out, log: log, ready: ready}
}

func (f *filterReader) Read(p []byte) (int, error) {
	<-f.ready
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.next()
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// next reads one line and either queues it for the SDK or answers it.
func (f *filterReader) next() {
	line, tooLong, err := readLine(f.r)
	if err != nil {
		f.err = err
	}
	if len(bytes.TrimSpace(line)) == 0 && !tooLong {
		return
	}
	if answer := check(line, tooLong); answer != nil {
		f.log.Warn("acp: malformed message answered with an error", "code", answer.Error.Code, "reason", answer.Error.Message)
		if werr := writeMessage(f.out, answer); werr != nil && f.err == nil {
			f.err = werr
		}
		return
	}
	if f.compat != nil {
		m, _ := probe(line)
		f.compat.saw(m)
		if renamed := f.compat.renamed(line, m); renamed != nil {
			line = renamed
		}
	}
	f.pending = append(line, '\n')
}

// readLine reads one line without its newline; past maxProbe bytes the rest
// of the line is skipped and tooLong set.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > maxProbe {
			tooLong = true
		} else {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) > maxMessage {
			tooLong = true
		}
		return line, tooLong, err
	}
}

// errorMessage is a JSON-RPC error response.
type errorMessage struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      json.RawMessage  `json:"id"`
	Error   sdk.RequestError `json:"error"`
}

// check returns the error answer for a line that must not reach the SDK, or nil.
func check(line []byte, tooLong bool) *errorMessage {
	null := json.RawMessage("null")
	if tooLong {
		id := null
		if len(line) <= maxProbe {
			if m, ok := probe(line); ok && validID(m.ID) {
				id = m.ID
			}
		}
		return &errorMessage{JSONRPC: "2.0", ID: id, Error: *sdk.NewInvalidRequest(map[string]any{
			"error": fmt.Sprintf("message longer than %d bytes", maxMessage)})}
	}
	invalid := func(id json.RawMessage, why string) *errorMessage {
		return &errorMessage{JSONRPC: "2.0", ID: id, Error: *sdk.NewInvalidRequest(map[string]any{"error": why})}
	}
	m, ok := probe(line) // one pass over the line, which the SDK parses again
	if !ok {
		if !json.Valid(line) {
			return &errorMessage{JSONRPC: "2.0", ID: null, Error: *sdk.NewParseError(map[string]any{"error": "not a JSON value"})}
		}
		return invalid(null, "a message is one JSON object (batches are not supported)")
	}
	if m.ID != nil && !validID(m.ID) {
		return invalid(null, "id must be a string, a number or null")
	}
	id := m.ID
	if id == nil {
		id = null
	}
	switch {
	case m.Method != nil && !isString(m.Method):
		return invalid(id, "method must be a string")
	case m.Method == nil && m.ID == nil:
		return invalid(null, "neither a method nor an id: not a request, notification or response")
	}
	return nil
}

// message is the envelope of any JSON-RPC message, fields left raw.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method json.RawMessage `json:"method"`
}

func probe(line []byte) (message, bool) {
	var m message
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &m) != nil {
		return m, false
	}
	return m, true
}

func validID(id json.RawMessage) bool {
	if id == nil {
		return true
	}
	switch bytes.TrimSpace(id)[0] {
	case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

func isString(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '"'
}

func writeMessage(w io.Writer, m any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// guard turns a panic in a handler into an internal error (the SDK runs
// handlers on goroutines of its own, where a panic would end the process).
func guard(log *slog.Logger, method string, err *error) {
	if p := recover(); p != nil {
		log.Error("acp: handler panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
		*err = sdk.NewInternalError(map[string]any{"error": fmt.Sprintf("agent-lsp: %s failed: %v", method, p)})
	}
}
