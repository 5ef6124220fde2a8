package langserver

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"sync"

	"go.lsp.dev/uri"
)

// MapPaths is p seen from the workspace at from while the server sees it
// at to (a copy of it: a run-private server below the sandbox's level
// full): file URIs naming from are rewritten to name to in what is sent,
// and URIs and paths naming to back to from in what the server says, so
// that the client and the run know only the workspace's own paths.
func MapPaths(p Process, from, to string) Process {
	fromURI, toURI := string(uri.File(from)), string(uri.File(to))
	in := func(body []byte) []byte { return replacePrefix(body, fromURI, toURI) }
	out := func(body []byte) []byte {
		return replacePrefix(replacePrefix(body, toURI, fromURI), to, from)
	}
	return &mappedProcess{Process: p,
		stdin:  &frameWriter{w: p.Stdin(), rewrite: in},
		stdout: &frameReader{r: bufio.NewReader(p.Stdout()), c: p.Stdout(), rewrite: out}}
}

// replacePrefix replaces old where it names the folder itself or a path
// in it: followed by a separator or the end of a JSON string.
func replacePrefix(b []byte, old, new string) []byte {
	for _, end := range []string{"/", `"`} {
		b = bytes.ReplaceAll(b, []byte(old+end), []byte(new+end))
	}
	return b
}

type mappedProcess struct {
	Process
	stdin  io.WriteCloser
	stdout io.ReadCloser
}

func (m *mappedProcess) Stdin() io.WriteCloser { return m.stdin }
func (m *mappedProcess) Stdout() io.ReadCloser { return m.stdout }

// frameWriter gathers what is written into LSP frames (Content-Length
// headers, then the body) and writes each rewritten.
type frameWriter struct {
	w       io.WriteCloser
	rewrite func([]byte) []byte
	mu      sync.Mutex
	buf     []byte
}

func (f *frameWriter) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf = append(f.buf, b...)
	for {
		end := bytes.Index(f.buf, []byte("\r\n\r\n"))
		if end < 0 {
			return len(b), nil
		}
		n, err := contentLength(f.buf[:end+4])
		if err != nil {
			return 0, err
		}
		if len(f.buf) < end+4+n {
			return len(b), nil
		}
		body := f.rewrite(bytes.Clone(f.buf[end+4 : end+4+n]))
		f.buf = f.buf[end+4+n:]
		if _, err := fmt.Fprintf(f.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
			return 0, err
		}
	}
}

func (f *frameWriter) Close() error { return f.w.Close() }

// frameReader reads LSP frames and serves each rewritten.
type frameReader struct {
	r       *bufio.Reader
	c       io.Closer
	rewrite func([]byte) []byte
	pending []byte
}

func (f *frameReader) Read(b []byte) (int, error) {
	if len(f.pending) == 0 {
		header, err := textproto.NewReader(f.r).ReadMIMEHeader()
		if err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(header.Get("Content-Length"))
		if err != nil || n < 0 {
			return 0, fmt.Errorf("a frame without a valid Content-Length: %q", header.Get("Content-Length"))
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(f.r, body); err != nil {
			return 0, err
		}
		body = f.rewrite(body)
		f.pending = fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	n := copy(b, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *frameReader) Close() error { return f.c.Close() }

// contentLength reads a frame's headers.
func contentLength(header []byte) (int, error) {
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(header))).ReadMIMEHeader()
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(h.Get("Content-Length"))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("a frame without a valid Content-Length: %q", h.Get("Content-Length"))
	}
	return n, nil
}
