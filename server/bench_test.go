package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// BenchmarkStartToInitialize starts the real binary as an editor does —
// `agent-lsp` (LSP, Content-Length framing) and `agent-lsp acp` (ACP, one
// JSON line) — sends initialize and waits for the answer, measured from
// outside the process. It reports the median, and the memory of the
// server's process tree (the sandbox's spare helper included) one second
// after initialized: PSS, RSS and anonymous memory.
func BenchmarkStartToInitialize(b *testing.B) {
	bin := servertest.Binary(b)
	lsp := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`
	for _, c := range []struct {
		name, send, initialized string
		args                    []string
	}{
		{"serve", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(lsp), lsp), lspFrame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`), nil},
		{"acp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n", "", []string{"acp"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var took []time.Duration
			var mem treeMemory
			for b.Loop() {
				cmd := exec.Command(bin, c.args...)
				cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+b.TempDir(), "XDG_STATE_HOME="+b.TempDir(), "XDG_CACHE_HOME="+b.TempDir())
				stdin, _ := cmd.StdinPipe()
				stdout, _ := cmd.StdoutPipe()
				start := time.Now()
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				io.WriteString(stdin, c.send)
				line, err := bufio.NewReader(stdout).ReadString('\n')
				if err != nil || !strings.Contains(line, "Content-Length:") && !strings.Contains(line, `"result"`) {
					b.Fatalf("%q %v", line, err)
				}
				took = append(took, time.Since(start))
				go io.Copy(io.Discard, stdout)
				if len(took) == 1 {
					b.StopTimer()
					io.WriteString(stdin, c.initialized)
					time.Sleep(time.Second)
					mem = memoryOfTree(cmd.Process.Pid)
					b.StartTimer()
				}
				stdin.Close()
				cmd.Wait()
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(mem.pss)/1024, "PSS-MB")
			b.ReportMetric(float64(mem.rss)/1024, "RSS-MB")
			b.ReportMetric(float64(mem.anon)/1024, "anon-MB")
		})
	}
}

func lspFrame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// treeMemory is the memory of a process and its descendants, in kB.
type treeMemory struct{ pss, rss, anon int }

func memoryOfTree(pid int) treeMemory {
	var m treeMemory
	rollup, _ := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	for _, l := range strings.Split(string(rollup), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.Atoi(f[1])
		switch f[0] {
		case "Pss:":
			m.pss += n
		case "Rss:":
			m.rss += n
		case "Anonymous:":
			m.anon += n
		}
	}
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		for _, c := range strings.Fields(string(children)) {
			if child, err := strconv.Atoi(c); err == nil {
				cm := memoryOfTree(child)
				m.pss, m.rss, m.anon = m.pss+cm.pss, m.rss+cm.rss, m.anon+cm.anon
			}
		}
	}
	return m
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
		sessions := newSessions(b, f, runs)
		start := time.Now()
		askInSessions(b, f, sessions)
		b.ReportMetric(time.Since(start).Seconds(), "wall-s")
		if n := len(srv.Requests()); n != runs*3 {
			b.Fatalf("%d model calls, want %d", n, runs*3)
		}
	}
}

// BenchmarkInlineCompletion measures textDocument/inlineCompletion over the
// LSP wire against an instant FIM model on loopback HTTP, with a 1 ms
// debounce, and the same model called directly: the p99 difference is the
// server's own overhead per request (decoding, the document, the prompt,
// shaping, encoding), debounce excluded.
func BenchmarkInlineCompletion(b *testing.B) {
	srv := llmtest.NewOpenAIResponder(b, func(map[string]any) llmtest.Turn { return llmtest.Turn{Text: "compute(i)\n"} })
	f := newFixture(b, nil, srv, map[string]string{"AGENT_LSP_COMPLETION_MODEL": "coder"})
	f.editor.Initialize(f.root, servertest.Caps{InlineCompletion: true}, map[string]any{"completion": map[string]any{"fim": "suffix", "debounceMs": 1}})
	var text strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&text, "\tx%d := compute(%d) // a typical line of code\n", i, i)
	}
	u := f.uri("big.go")
	f.editor.Open(u, text.String())
	// The direct call sends a prompt as large as the server's (6 KB before
	// the cursor, 2 KB after), so the model's own cost of reading it is not
	// counted as ours.
	body := fmt.Sprintf(`{"model":"coder","prompt":%q,"suffix":%q,"max_tokens":128}`, strings.Repeat("x", 6000), strings.Repeat("y", 2000))
	direct := func() {
		resp, err := http.Post(srv.URL+"/v1/completions", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	var lsp, model []time.Duration
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		var list struct {
			Items []struct{ InsertText string } `json:"items"`
		}
		if err := f.editor.Call("textDocument/inlineCompletion", map[string]any{"textDocument": map[string]any{"uri": u},
			"position": map[string]any{"line": i % 2000, "character": 1}, "context": map[string]any{"triggerKind": 2}}, &list); err != nil || len(list.Items) != 1 {
			b.Fatalf("%v %+v", err, list)
		}
		lsp = append(lsp, time.Since(start)-time.Millisecond)
		start = time.Now()
		direct()
		model = append(model, time.Since(start))
	}
	slices.Sort(lsp)
	slices.Sort(model)
	p99 := func(d []time.Duration) float64 { return float64(d[len(d)*99/100].Microseconds()) / 1000 }
	b.ReportMetric(p99(lsp), "p99-ms-roundtrip")
	b.ReportMetric(p99(model), "p99-ms-model")
	b.ReportMetric(p99(lsp)-p99(model), "p99-ms-overhead")
}

// BenchmarkCompletionBurst types 20 keystrokes 30 ms apart, each followed by
// an inline completion request, against a model that takes 50 ms, and
// reports how many times the model was called (the bound is 2).
func BenchmarkCompletionBurst(b *testing.B) {
	srv := llmtest.NewOpenAIResponder(b, func(map[string]any) llmtest.Turn { return llmtest.Turn{Text: "()", Delay: 50 * time.Millisecond} })
	f := newFixture(b, nil, srv, map[string]string{"AGENT_LSP_COMPLETION_MODEL": "coder"})
	f.editor.Initialize(f.root, servertest.Caps{InlineCompletion: true}, map[string]any{"completion": map[string]any{"fim": "suffix"}})
	u := f.uri("main.go")
	calls := 0
	for b.Loop() {
		before := len(srv.Requests())
		line := ""
		f.editor.Open(u, "package main\n\nfunc main() {\n\t\n}\n")
		var wg sync.WaitGroup
		for k := range 20 {
			line += string(rune('a' + k))
			f.editor.Type(u, "package main\n\nfunc main() {\n\t"+line+"\n}\n")
			wg.Add(1)
			go func(col int) {
				defer wg.Done()
				f.editor.Call("textDocument/inlineCompletion", map[string]any{"textDocument": map[string]any{"uri": u},
					"position": map[string]any{"line": 3, "character": col}, "context": map[string]any{"triggerKind": 2}}, nil)
			}(1 + len(line))
			time.Sleep(30 * time.Millisecond)
		}
		wg.Wait()
		calls += len(srv.Requests()) - before
	}
	b.ReportMetric(float64(calls)/float64(b.N), "model-calls/burst")
}

// twoCallModel answers each run with one tool turn and then the answer,
// 200 ms each: a run's floor is 400 ms.
func twoCallModel(b *testing.B) *llmtest.Server {
	return llmtest.NewOpenAIResponder(b, func(body map[string]any) llmtest.Turn {
		if llmtest.CountRole(body, "tool") == 0 {
			return llmtest.Turn{Delay: 200 * time.Millisecond, Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}}
		}
		return llmtest.Turn{Delay: 200 * time.Millisecond, Text: "done"}
	})
}

// newSessions makes n sessions.
func newSessions(b *testing.B, f *fixture, n int) []string {
	sessions := make([]string, n)
	for i := range sessions {
		var s struct {
			Session string `json:"session"`
		}
		if err := f.editor.Command(server.CommandNewSession, nil, &s); err != nil {
			b.Fatal(err)
		}
		sessions[i] = s.Session
	}
	return sessions
}

// askInSessions starts one agent.ask in each session at once and waits
// until every run has ended.
func askInSessions(b *testing.B, f *fixture, sessions []string) {
	n := len(sessions)
	var wg sync.WaitGroup
	ids := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res askResult
			if err := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "read", "session": sessions[i]}, &res); err != nil {
				b.Error(err)
			}
			ids[i] = res.RunID
		}()
	}
	wg.Wait()
	for _, id := range ids {
		f.editor.Wait(id, func() bool { _, ok := f.editor.ProgressEnded("agent-lsp/" + id); return ok })
	}
}

// BenchmarkTwoHundredConcurrentRuns: 200 runs at once through one server,
// each two 200 ms model calls. The floor is 400 ms; floor-ratio says how
// far above it the server's own work put the last run.
func BenchmarkTwoHundredConcurrentRuns(b *testing.B) {
	const runs = 200
	for b.Loop() {
		srv := twoCallModel(b)
		f := newFixture(b, map[string]string{"a.txt": "alpha\n"}, srv, nil)
		f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
		sessions := newSessions(b, f, runs)
		start := time.Now()
		askInSessions(b, f, sessions)
		wall := time.Since(start)
		if n := len(srv.Requests()); n != runs*2 {
			b.Fatalf("%d model calls, want %d", n, runs*2)
		}
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(wall.Seconds()/0.4, "floor-ratio")
	}
}

// BenchmarkMemoryOverSequentialRuns runs 1,000 runs one after another
// through one server, each in a session of its own (one session's history
// grows by design until it is compacted), and reports the live heap after
// the first 100 and after all of them: a server that keeps something per
// run grows. The model server's record of requests and the editor's of
// messages and progress are dropped first.
func BenchmarkMemoryOverSequentialRuns(b *testing.B) {
	for b.Loop() {
		srv := llmtest.NewOpenAIResponder(b, func(body map[string]any) llmtest.Turn {
			if llmtest.CountRole(body, "tool") == 0 {
				return llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}}
			}
			return llmtest.Turn{Text: "done"}
		})
		f := newFixture(b, map[string]string{"a.txt": "alpha\n"}, srv, nil)
		f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
		heap := func() float64 {
			srv.Forget()
			f.editor.Forget()
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return float64(m.HeapAlloc) / (1 << 20)
		}
		var after100 float64
		for i := range 1000 {
			askInSessions(b, f, newSessions(b, f, 1))
			if i == 99 {
				after100 = heap()
			}
		}
		b.ReportMetric(after100, "heap-MB-after-100")
		b.ReportMetric(heap(), "heap-MB-after-1000")
	}
}

// BenchmarkHelixTypingAfterASkippedVersion: Helix 25.01 skips a version
// after a completion preview, then the user types. Reported: how long
// after the change was sent the code actions list what it typed (asked
// again until they do).
func BenchmarkHelixTypingAfterASkippedVersion(b *testing.B) {
	f := newFixture(b, map[string]string{"a.py": "\n"}, nil, nil)
	f.editor.Initialize(f.root, servertest.Caps{Name: "helix", Version: "25.01.1"}, nil)
	u := f.uri("a.py")
	var took []time.Duration
	for b.Loop() {
		f.editor.Open(u, "\n")
		helixChange(f, u, 3, "", "# AGENT: tidy")
		start := time.Now()
		for !slices.Contains(instructionTitles(b, f, u), "Agent: tidy") {
		}
		took = append(took, time.Since(start))
		f.editor.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms-until-read")
}
