//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
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

// childMode runs this test binary as a benchmark's child process, when the
// environment says so.
func childMode() bool {
	if dir := os.Getenv(firstCommandEnv); dir != "" {
		firstCommand(dir)
		return true
	}
	return false
}

// firstCommandEnv makes this test binary a fresh process that readies the
// sandbox as a server does at its first run (Prepare, in the background),
// lets the model think for 100 ms, then runs its first command and prints
// how long that took.
const firstCommandEnv = "AGENT_LSP_TEST_FIRST_COMMAND"

func firstCommand(dir string) {
	go Prepare()
	time.Sleep(100 * time.Millisecond)
	w := world{ws: filepath.Join(dir, "ws"), upper: filepath.Join(dir, "upper"), work: filepath.Join(dir, "work"), cache: filepath.Join(dir, "cache"),
		layer: newLayerIfBounded(nil)}
	spec := w.spec("true", nil, nil)
	spec.Stdout, spec.Stderr = io.Discard, io.Discard
	start := time.Now()
	_, err := Run(context.Background(), spec)
	fmt.Println(time.Since(start).Microseconds(), err)
}

// BenchmarkFirstCommandAfterStart measures the first command of a fresh
// process, the sandbox readied in the background while the model thinks:
// it should cost what every later one does (BenchmarkSetup).
func BenchmarkFirstCommandAfterStart(b *testing.B) {
	var took []time.Duration
	for b.Loop() {
		w := newWorld(b)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), firstCommandEnv+"="+filepath.Dir(w.ws))
		out, err := cmd.Output()
		var us int64
		var runErr string
		if _, serr := fmt.Sscan(string(out), &us, &runErr); err != nil || serr != nil || runErr != "<nil>" {
			b.Fatalf("%v %q", err, out)
		}
		took = append(took, time.Duration(us)*time.Microsecond)
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2])/1e6, "p50-ms")
}
