package server_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// BenchmarkStartToInitialize starts the real binary, sends initialize over
// stdio and waits for the answer; it reports that time and the process's RSS
// once initialized.
func BenchmarkStartToInitialize(b *testing.B) {
	bin := servertest.Binary(b)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`
	var total time.Duration
	var rssKB int
	for b.Loop() {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+b.TempDir(), "XDG_STATE_HOME="+b.TempDir(), "XDG_CACHE_HOME="+b.TempDir())
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body)
		r := bufio.NewReader(stdout)
		line, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "Content-Length:") {
			b.Fatalf("%q %v", line, err)
		}
		total += time.Since(start)
		status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		for _, l := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
				rssKB, _ = strconv.Atoi(strings.Fields(v)[0])
			}
		}
		stdin.Close()
		cmd.Wait()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms-to-initialize")
	b.ReportMetric(float64(rssKB)/1024, "RSS-MB")
}

// BenchmarkConcurrentAsks runs 50 agent.ask at once in 50 sessions against a
// provider that takes 200 ms per call, 3 model calls each (two tool turns and
// an answer), and reports the wall time until every run ended. Serialised runs
// would take 30 s; 0.6 s means none waits on another. WithACommand makes the
// second tool turn a command, run in each run's own sandbox.
func BenchmarkConcurrentAsks(b *testing.B) {
	b.Run("ReadAndSearch", func(b *testing.B) {
		benchmarkConcurrentAsks(b, llmtest.Call{Name: "search", Args: `{"pattern":"alpha"}`})
	})
	b.Run("WithACommand", func(b *testing.B) {
		benchmarkConcurrentAsks(b, llmtest.Call{Name: "execute_command", Args: `{"command":"grep -c alpha a.txt"}`})
	})
}

func benchmarkConcurrentAsks(b *testing.B, second llmtest.Call) {
	const runs = 50
	for b.Loop() {
		srv := llmtest.NewOpenAIResponder(b, func(body map[string]any) llmtest.Turn {
			switch llmtest.CountRole(body, "tool") {
			case 0:
				return llmtest.Turn{Delay: 200 * time.Millisecond, Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}}
			case 1:
				return llmtest.Turn{Delay: 200 * time.Millisecond, Calls: []llmtest.Call{second}}
			}
			return llmtest.Turn{Delay: 200 * time.Millisecond, Text: "done"}
		})
		f := newFixture(b, map[string]string{"a.txt": "alpha\n"}, srv, nil)
		f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
		sessions := make([]string, runs)
		for i := range sessions {
			var s struct {
				Session string `json:"session"`
			}
			if err := f.editor.Command("agent.newSession", nil, &s); err != nil {
				b.Fatal(err)
			}
			sessions[i] = s.Session
		}
		start := time.Now()
		var wg sync.WaitGroup
		ids := make([]string, runs)
		for i := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var res askResult
				if err := f.editor.Command("agent.ask", map[string]any{"prompt": "read", "session": sessions[i]}, &res); err != nil {
					b.Error(err)
				}
				ids[i] = res.RunID
			}()
		}
		wg.Wait()
		for _, id := range ids {
			f.editor.Wait(id, func() bool { _, ok := f.editor.ProgressEnded("agent-lsp/" + id); return ok })
		}
		b.ReportMetric(time.Since(start).Seconds(), "wall-s")
		if n := len(srv.Requests()); n != runs*3 {
			b.Fatalf("%d model calls, want %d", n, runs*3)
		}
	}
}
