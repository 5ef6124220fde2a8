package langserver_test

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/langserver"
)

// pipedProcess is a process whose stdin and stdout are the test's ends.
type pipedProcess struct {
	stdin  io.WriteCloser
	stdout io.ReadCloser
}

func (p pipedProcess) Stdin() io.WriteCloser { return p.stdin }
func (p pipedProcess) Stdout() io.ReadCloser { return p.stdout }
func (pipedProcess) Wait() error             { return nil }
func (pipedProcess) Kill() error             { return nil }
func (pipedProcess) Pid() int                { return 1 }

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// readFrame reads one frame's body.
func readFrame(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	var n int
	if _, err := fmt.Fscanf(r, "Content-Length: %d\r\n\r\n", &n); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// A server run in a copy of the workspace gets URIs naming the copy, in
// frames written piecemeal, and its URIs and paths come back naming the
// workspace; a folder that only begins like the workspace's keeps its
// name, and a frame without a length is refused, said so.
func TestMapPathsRewritesEachFramesURIs(t *testing.T) {
	serverIn, toServer := io.Pipe()
	fromServer, serverOut := io.Pipe()
	p := langserver.MapPaths(pipedProcess{toServer, fromServer}, "/work/ws", "/tmp/copy")

	sent := `{"uri":"file:///work/ws/a.go","rootUri":"file:///work/ws","other":"file:///work/ws-old/b.go"}`
	go func() {
		f := frame(sent)
		for _, part := range []string{f[:10], f[10:30], f[30:]} { // as a header, then a body, may come
			if _, err := p.Stdin().Write([]byte(part)); err != nil {
				t.Error(err)
			}
		}
	}()
	got := readFrame(t, bufio.NewReader(serverIn))
	if want := `{"uri":"file:///tmp/copy/a.go","rootUri":"file:///tmp/copy","other":"file:///work/ws-old/b.go"}`; got != want {
		t.Errorf("the server got %s, want %s", got, want)
	}

	said := `{"uri":"file:///tmp/copy/a.go","message":"declared in /tmp/copy/a.h:4"}`
	go func() { _, _ = io.WriteString(serverOut, frame(said)) }()
	back := readFrame(t, bufio.NewReader(p.Stdout()))
	if want := `{"uri":"file:///work/ws/a.go","message":"declared in /work/ws/a.h:4"}`; back != want {
		t.Errorf("the client got %s, want %s", back, want)
	}

	if _, err := p.Stdin().Write([]byte("Content-Length: many\r\n\r\n{}")); err == nil || !strings.Contains(err.Error(), "Content-Length") {
		t.Errorf("a frame without a length: %v", err)
	}
}
