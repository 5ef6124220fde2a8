package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSetup measures one command (`true`) at the machine's level: the
// helper's start, namespaces, the overlay, Landlock and the cgroup. The
// overlay's set-up does not depend on the workspace's size.
func BenchmarkSetup(b *testing.B) {
	for _, files := range []int{10, 50_000} {
		b.Run(fmt.Sprintf("%dfiles", files), func(b *testing.B) {
			w := newWorld(b)
			for i := range files {
				dir := filepath.Join(w.ws, fmt.Sprintf("d%03d", i%500))
				os.MkdirAll(dir, 0o755)
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.go", i)), []byte("package x\n"), 0o644)
			}
			syscall.Sync() // a workspace's files are on disk long before a command: no writeback during the timing
			Probe()
			var took []time.Duration
			for b.Loop() {
				spec := w.spec("true", nil, nil)
				spec.Stdout, spec.Stderr = io.Discard, io.Discard
				start := time.Now()
				if _, err := Run(context.Background(), spec); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2])/1e6, "p50-ms")
		})
	}
}
