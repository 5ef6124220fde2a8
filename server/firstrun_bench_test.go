package server_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// modelTime is what twoCallModel takes per run: two calls of 200 ms.
const modelTime = 400 * time.Millisecond

// startServer starts the real binary as an editor does, serving LSP on
// its stdio with the fake editor on the other end, in a workspace of its
// own and with homes of its own, its model at modelURL.
func startServer(b testing.TB, modelURL string) (*servertest.Editor, string) {
	b.Helper()
	root := toolstest.WriteTree(b, map[string]string{"a.txt": "alpha\n"})
	cmd := exec.Command(servertest.Binary(b))
	cmd.Env = append(os.Environ(), "HOME="+b.TempDir(), "XDG_CONFIG_HOME="+b.TempDir(), "XDG_STATE_HOME="+b.TempDir(), "XDG_CACHE_HOME="+b.TempDir(),
		"AGENT_LSP_MODEL=gpt-test", "OPENAI_BASE_URL="+modelURL+"/v1", "OPENAI_API_KEY=test")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	e := servertest.Connect(b, func(rwc io.ReadWriteCloser) {
		go func() { io.Copy(stdin, rwc); stdin.Close() }()
		io.Copy(rwc, stdout)
		cmd.Wait()
	})
	return e, root
}

// timedAsk runs agent.ask with wait in a new session and returns how long
// it took beyond the model's own time.
func timedAsk(b testing.TB, e *servertest.Editor) time.Duration {
	b.Helper()
	var s struct {
		Session string `json:"session"`
	}
	if err := e.Command(server.CommandNewSession, nil, &s); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	var res askResult
	if err := e.Command(server.CommandAsk, map[string]any{"prompt": "read", "session": s.Session, "wait": true}, &res); err != nil || res.State != "completed" {
		b.Fatalf("%+v %v", res, err)
	}
	return time.Since(start) - modelTime
}

// BenchmarkRunOverModelTime starts the real binary, initializes it as an
// editor does and asks, waiting, five times, each a run of two 200 ms
// model calls; reported is how far each run took beyond those 400 ms:
// the connection's first run (the median over iterations) and the later
// ones (their median).
func BenchmarkRunOverModelTime(b *testing.B) {
	srv := twoCallModel(b)
	var first, later []time.Duration
	for b.Loop() {
		e, root := startServer(b, srv.URL)
		e.Initialize(root, servertest.Caps{Progress: true}, nil)
		first = append(first, timedAsk(b, e))
		for range 4 {
			later = append(later, timedAsk(b, e))
		}
	}
	slices.Sort(first)
	slices.Sort(later)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(first[len(first)/2]), "first-over-model-ms")
	b.ReportMetric(ms(later[len(later)/2]), "later-over-model-ms")
}

// BenchmarkFiftyConcurrentRunsOverFloor runs 50 agent.ask at once in 50
// sessions of one server (the real binary, just initialized), each two
// 200 ms model calls, then sends the same
// 100 requests straight to the same model, 50 at once, each pair in turn:
// that is the floor, measured in the same iteration. Reported: the runs'
// wall time over the floor's.
func BenchmarkFiftyConcurrentRunsOverFloor(b *testing.B) {
	const runs = 50
	var ratios []float64
	for b.Loop() {
		srv := twoCallModel(b)
		e, root := startServer(b, srv.URL)
		e.Initialize(root, servertest.Caps{Progress: true}, nil)
		f := &fixture{t: b, editor: e}
		sessions := newSessions(b, f, runs)
		start := time.Now()
		askInSessions(b, f, sessions)
		wall := time.Since(start)
		var firsts, seconds [][]byte
		for _, raw := range srv.RawRequests() {
			if bytes.Contains(raw, []byte(`"role":"tool"`)) {
				seconds = append(seconds, raw)
			} else {
				firsts = append(firsts, raw)
			}
		}
		if len(firsts) != runs || len(seconds) != runs {
			b.Fatalf("%d first and %d second requests, want %d each", len(firsts), len(seconds), runs)
		}
		start = time.Now()
		var wg sync.WaitGroup
		for i := range runs {
			wg.Go(func() {
				for _, body := range [][]byte{firsts[i], seconds[i]} {
					resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", bytes.NewReader(body))
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
		}
		wg.Wait()
		ratios = append(ratios, wall.Seconds()/time.Since(start).Seconds())
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "over-floor")
}
