package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// writeTree creates files (path → content) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	toolstest.WriteFiles(t, root, files)
}

// currentView is the view commands run in in w's current root, nil before
// the first command.
func currentView(w *Workspace) commandView {
	w.Commands.mu.Lock()
	defer w.Commands.mu.Unlock()
	return w.views[w.cur]
}

// call runs one tool through the registry with args marshalled from a map.
func call(t *testing.T, r *Registry, tool string, args map[string]any) Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Execute(context.Background(), tool, raw)
	if err != nil {
		t.Fatalf("%s: Go error %v", tool, err)
	}
	return res
}

// snapshot reads every file under root, to prove a test left them untouched.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&os.ModeSymlink != 0 {
			return err
		}
		data, err := os.ReadFile(p)
		out[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type mapOverlay map[string]struct {
	text    string
	version int32
}

func (m mapOverlay) Buffer(abs string) (string, int32, bool) {
	b, ok := m[abs]
	return b.text, b.version, ok
}

// OpenBuffers makes mapOverlay a BufferLister, as the server's buffers are.
func (m mapOverlay) OpenBuffers() []string {
	var paths []string
	for p := range m {
		paths = append(paths, p)
	}
	return paths
}
