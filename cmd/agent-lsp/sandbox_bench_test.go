//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
)

// BenchmarkSandboxSetup runs `true` through the workspace's sandbox from a
// binary that links everything agent-lsp does (this test binary), so the
// helper's start costs what it costs in the product: the re-exec, the
// namespaces, the overlay, Landlock and the cgroup. The workspace's size
// must not matter.
func BenchmarkSandboxSetup(b *testing.B) {
	b.Logf("sandbox: %s", tools.SandboxLevel())
	for _, files := range []int{10, 50_000} {
		b.Run(fmt.Sprintf("%dfiles", files), func(b *testing.B) {
			root := b.TempDir()
			for i := range files {
				dir := filepath.Join(root, fmt.Sprintf("d%03d", i%500))
				os.MkdirAll(dir, 0o755)
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.go", i)), []byte("package x\n"), 0o644)
			}
			syscall.Sync() // a workspace's files are on disk long before a command: no writeback during the timing
			w, err := tools.NewWorkspace(root, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			w.SetSandbox(tools.SandboxOptions{})
			if _, err := w.Stage("d000/f00000.go", "package changed\n"); err != nil {
				b.Fatal(err)
			}
			var durations []time.Duration
			for b.Loop() {
				start := time.Now()
				out, err := w.RunCommand(context.Background(), "true", time.Minute, 1000)
				if err != nil || out.ExitCode != 0 {
					b.Fatalf("%v %+v", err, out)
				}
				durations = append(durations, time.Since(start))
			}
			slices.Sort(durations)
			b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "median-ms")
		})
	}
}
