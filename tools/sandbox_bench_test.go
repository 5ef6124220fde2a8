package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// BenchmarkGoTestSmallModule runs `go test -count=1 ./...` of a small module
// inside the sandbox and outside it, each with its own warm build cache.
func BenchmarkGoTestSmallModule(b *testing.B) {
	root := toolstest.WriteTree(b, map[string]string{
		"go.mod":      "module small\n\ngo 1.22\n",
		"add.go":      "package small\n\nimport \"strings\"\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Up(s string) string { return strings.ToUpper(s) }\n",
		"add_test.go": "package small\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 || Up(\"a\") != \"A\" {\n\t\tt.Fatal(\"no\")\n\t}\n}\n",
	})
	const command = "go test -count=1 ./..."
	b.Run("Sandbox", func(b *testing.B) {
		w, err := NewWorkspace(root, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		w.SetSandbox(SandboxOptions{})
		run := func() {
			out, err := w.RunCommand(context.Background(), command, 5*time.Minute, 100_000)
			if err != nil || out.ExitCode != 0 {
				b.Fatalf("%v %+v", err, out)
			}
		}
		run() // warm the private cache
		for b.Loop() {
			run()
		}
	})
	b.Run("Outside", func(b *testing.B) {
		cache := filepath.Join(b.TempDir(), "go-build")
		run := func() {
			cmd := exec.Command("bash", "-c", command)
			cmd.Dir, cmd.Env = root, append(os.Environ(), "GOCACHE="+cache, "GOFLAGS=", "GOTOOLCHAIN=local")
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v %s", err, out)
			}
		}
		run()
		for b.Loop() {
			run()
		}
	})
}
