package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// askingOverlay is a KnownOverlay that counts the round trips Buffer would make.
type askingOverlay struct {
	asked atomic.Int32
	known map[string]string
	all   map[string]string
}

func (o *askingOverlay) Buffer(abs string) (string, int32, bool) {
	o.asked.Add(1)
	text, ok := o.all[abs]
	return text, 0, ok
}

func (o *askingOverlay) Known(abs string) (string, int32, bool) {
	text, ok := o.known[abs]
	return text, 0, ok
}

func TestSearchAsksKnownOverlayNothing(t *testing.T) {
	root := toolstest.WriteTree(t, map[string]string{"a.txt": "disk a\n", "b.txt": "disk b\n", "c.txt": "disk c\n"})
	o := &askingOverlay{
		known: map[string]string{filepath.Join(root, "a.txt"): "unsaved needle\n"},
		all:   map[string]string{filepath.Join(root, "b.txt"): "editor-only needle\n"},
	}
	w, err := NewWorkspace(root, o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := NewSearch(w).Execute(context.Background(), json.RawMessage(`{"pattern":"needle"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "a.txt:1: unsaved needle") || strings.Contains(res.Text, "b.txt") {
		t.Errorf("search = %q, want the known buffer of a.txt and disk for the rest", res.Text)
	}
	if n := o.asked.Load(); n != 0 {
		t.Errorf("search asked the overlay %d times", n)
	}
	// A read of one file still asks.
	if f, err := w.Read("b.txt"); err != nil || f.Text != "editor-only needle\n" || o.asked.Load() != 1 {
		t.Errorf("Read = %q, %v after %d asks", f.Text, err, o.asked.Load())
	}
}
