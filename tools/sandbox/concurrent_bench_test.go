//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"
)

// BenchmarkConcurrentCommands runs 50 commands at once, each in its own
// sandbox, and reports the wall time until all ended.
func BenchmarkConcurrentCommands(b *testing.B) {
	for _, network := range []bool{false, true} {
		b.Run(fmt.Sprintf("network=%v", network), func(b *testing.B) {
			const n = 50
			worlds := make([]world, n)
			for i := range worlds {
				worlds[i] = newWorld(b)
			}
			for b.Loop() {
				start := time.Now()
				var wg sync.WaitGroup
				for i := range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						spec := worlds[i].spec("true", nil, nil)
						spec.Stdout, spec.Stderr, spec.Network = io.Discard, io.Discard, network
						if _, err := Run(context.Background(), spec); err != nil {
							b.Error(err)
						}
					}()
				}
				wg.Wait()
				b.ReportMetric(time.Since(start).Seconds(), "wall-s")
			}
		})
	}
}
