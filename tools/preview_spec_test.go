package tools

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// What doctor --sandbox prints is a command's spec as a run builds it: the
// same builder, so the two differ only in the view and cache a run makes.
func TestThePreviewSpecIsTheRunsSpec(t *testing.T) {
	w, err := NewWorkspace(toolstest.WriteTree(t, map[string]string{"a.txt": "a\n"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetSandbox(SandboxOptions{NetworkIn: func(string) bool { return true }, ReadOnly: []string{"/opt/toolchain"},
		Limits: sandbox.Limits{Memory: 123 << 20}, Env: []string{"PATH=/usr/bin", "LANG=C"}})
	run, _, err := w.Commands.commandSpec(context.Background(), "go test ./...", w.Commands.roots.cur, 7*time.Second, true)
	if err != nil {
		t.Fatal(err)
	}
	preview := w.PreviewSpec("go test ./...", 7*time.Second)
	if preview.View != (sandbox.View{}) || preview.Limits.Timeout != 7*time.Second || preview.GitDir == "" || !preview.Network {
		t.Fatalf("preview %+v", preview)
	}
	run.View, run.Cache, preview.View, preview.Cache = sandbox.View{}, "", sandbox.View{}, ""
	if !reflect.DeepEqual(run, preview) {
		t.Fatalf("a run's spec\n%+v\nand doctor's\n%+v", run, preview)
	}
}
