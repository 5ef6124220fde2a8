package langserver_test

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
)

// editorBuffers is an editor's open buffers that says when one changes
// (tools.BufferWatcher), as the LSP server's document store does.
type editorBuffers struct {
	mu       sync.Mutex
	text     map[string]string
	versions map[string]int32
	watchers []func(string)
}

func (e *editorBuffers) Buffer(abs string) (string, int32, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t, ok := e.text[abs]
	return t, e.versions[abs], ok
}

// OpenBuffers lists the buffers (tools.BufferLister).
func (e *editorBuffers) OpenBuffers() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Collect(maps.Keys(e.text))
}

func (e *editorBuffers) WatchBuffers(changed func(string)) func() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.watchers = append(e.watchers, changed)
	n := len(e.watchers) - 1
	return func() {
		e.mu.Lock()
		e.watchers[n] = nil
		e.mu.Unlock()
	}
}

// typed is the user typing text into abs's buffer.
func (e *editorBuffers) typed(abs, text string) {
	e.mu.Lock()
	e.text[abs] = text
	e.versions[abs]++
	watchers := append([]func(string){}, e.watchers...)
	e.mu.Unlock()
	for _, w := range watchers {
		if w != nil {
			w(abs)
		}
	}
}

// serverHolds waits until a server of s has want as abs's text, and
// returns the version and what the server said of it.
func serverHolds(t *testing.T, s *langserver.Session, abs, want string) (int32, []langserver.Diagnostic) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		text, v, ds, err := s.ServerSays(context.Background(), abs)
		if text == want && err == nil {
			return v, ds
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never held %s's buffer: it holds %q (%v)", abs, text, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTheEditorsChangesReachTheServerAsTyped: during a run, the user
// fixes in the editor a caller the run's edit broke; gopls gets the buffer
// and says it is fixed, with no language operation of the run in between.
// A buffer of a file the run staged is not sent: the server keeps the
// staged text.
func TestTheEditorsChangesReachTheServerAsTyped(t *testing.T) {
	editor := &editorBuffers{text: map[string]string{}, versions: map[string]int32{}}
	s, ws, root := goplsSession(t, editor)
	defer s.Close()

	a, b := filepath.Join(root, "a", "a.go"), filepath.Join(root, "b", "b.go")
	before := langservertest.GoModule["a/a.go"]
	staged := strings.Replace(before, "x, y int", "x, y, z int", 1)
	if _, err := ws.Stage("a/a.go", staged); err != nil {
		t.Fatal(err)
	}
	if r := s.AfterEdit(context.Background(), a, before); !strings.Contains(r.Text(), "b/b.go:6:") {
		t.Fatalf("the edit's report: %s", r.Text())
	}
	v0, _ := serverHolds(t, s, b, langservertest.GoModule["b/b.go"])

	fixed := strings.Replace(langservertest.GoModule["b/b.go"], "a.Add(1, 1)", "a.Add(1, 1, 0)", 1)
	editor.typed(b, fixed)
	v1, ds := serverHolds(t, s, b, fixed)
	if v1 <= v0 {
		t.Errorf("the buffer went to the server at version %d, after %d", v1, v0)
	}
	if len(ds) != 0 {
		t.Errorf("the server says of the fixed buffer: %+v", ds)
	}
	broken := strings.Replace(fixed, "a.Add(1, 1, 0)", "a.Add(1)", 1)
	editor.typed(b, broken)
	if _, ds := serverHolds(t, s, b, broken); len(ds) != 1 || !strings.Contains(ds[0].Message, "not enough arguments") {
		t.Errorf("the server says of the broken buffer: %+v", ds)
	}

	editor.typed(a, before+"\n// typed in the editor\n")
	editor.typed(b, fixed) // sent after a's, so a's was handled by then
	serverHolds(t, s, b, fixed)
	if text, _, _, _ := s.ServerSays(context.Background(), a); text != staged {
		t.Errorf("the server holds %q for a/a.go, which the run staged", text)
	}
}
