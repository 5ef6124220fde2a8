package servertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildOut  []byte
)

// Binary builds cmd/agent-lsp once per test process and returns its path,
// for tests that drive the real executable (Node, Neovim).
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		module := filepath.Join(filepath.Dir(file), "..", "..")
		dir, err := os.MkdirTemp("", "agent-lsp-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "agent-lsp")
		cmd := exec.Command("go", "build", "-o", builtBin, "./cmd/agent-lsp")
		cmd.Dir = module
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("building agent-lsp: %v\n%s", buildErr, buildOut)
	}
	return builtBin
}
