package langserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
)

// cpuTicks is a process's user and system time so far, in clock ticks
// (1/100 s), from /proc.
func cpuTicks(pid int) (int, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	utime, _ := strconv.Atoi(fields[11])
	stime, _ := strconv.Atoi(fields[12])
	return utime + stime, nil
}

// untilIdle is how long from now until the process spends at most one
// clock tick in a 200 ms window (idle), within limit.
func untilIdle(pid int, limit time.Duration) time.Duration {
	start := time.Now()
	for time.Since(start) < limit {
		t0, err := cpuTicks(pid)
		if err != nil {
			break
		}
		at := time.Now()
		time.Sleep(200 * time.Millisecond)
		if t1, _ := cpuTicks(pid); t1-t0 <= 1 {
			return at.Sub(start)
		}
	}
	return limit
}

// BenchmarkCancelledReferencesIdle: a references question on this
// repository, on a gopls started and loaded for it (idle: its packages'
// metadata loaded, none type-checked), given up 100 ms after it was asked
// as a cancelled run gives it up: how long from the cancel until gopls's
// CPU falls back to idle (ms/p50), and the CPU gopls spent from the
// question to then (ticks/op, 1/100 s). Each round asks of another
// declaration on a gopls of its own.
func BenchmarkCancelledReferencesIdle(b *testing.B) {
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	asks := []string{
		`{"symbol":"Workspace","path":"tools/workspace.go"}`, `{"symbol":"Request","path":"llm/llm.go"}`,
		`{"symbol":"Settings","path":"agent/config/settings.go"}`, `{"symbol":"Event","path":"agent/event.go"}`,
	}
	var idle []time.Duration
	ticks := 0
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		ws, err := tools.NewWorkspace(root, nil)
		if err != nil {
			b.Fatal(err)
		}
		m := langservertest.Gopls(b)
		s := langserver.NewSession(m, ws, langserver.WithOverrides(langserver.KnownServers(), nil))
		tool := func(name string) tools.Tool {
			for _, tl := range s.Tools() {
				if tl.Name() == name {
					return tl
				}
			}
			return nil
		}
		tool("symbols").Execute(context.Background(), []byte(`{"path":"tools/toolstest/toolstest.go"}`)) // started, loaded
		pid := 0
		for _, st := range m.Status() {
			fmt.Sscanf(st.State, "running (pid %d)", &pid)
		}
		untilIdle(pid, time.Minute)
		b.StartTimer()
		ticks0, _ := cpuTicks(pid)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			tool("references").Execute(ctx, []byte(asks[i%len(asks)]))
			close(done)
		}()
		time.Sleep(100 * time.Millisecond)
		cancel()
		idle = append(idle, untilIdle(pid, 30*time.Second)) // from the cancel
		ticks1, _ := cpuTicks(pid)
		ticks += ticks1 - ticks0
		<-done
		b.StopTimer()
		s.Close()
		m.Close()
		ws.Close()
		b.StartTimer()
	}
	b.StopTimer()
	p50(b, idle)
	b.ReportMetric(float64(ticks)/float64(b.N), "ticks/op")
}
