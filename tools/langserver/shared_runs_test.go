package langserver_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// sharedRunsFiles are the files the runs of sharedRuns all edit.
var sharedRunsFiles = []string{"a.fake", "b.fake", "c.fake", "d.fake"}

// sharedRuns plays runs concurrent runs of cycles edit/check cycles each
// on one shared scripted server (every fifth cycle a rename the server
// answers by editing through workspace/applyEdit; every fourth run stages
// the build file first, for a server of its own), with room for three
// servers. It fails t where a verdict is on another text than the run's,
// a server's edit reaches another run, or more servers ran than the room;
// it returns each check's time.
func sharedRuns(t testing.TB, runs, cycles int) []time.Duration {
	files := map[string]string{"fake.toml": ""}
	for _, f := range sharedRunsFiles {
		files[f] = f + " on disk\n"
	}
	root := toolstest.WriteTree(t, files)
	f := &fakeServer{pull: true, tagged: true, editOnRename: true}
	m := langserver.NewManager(langserver.Options{Start: f.start, Memory: 1 << 30, MemoryTotal: 3 << 30, Timeout: 10 * time.Second,
		LookPath: func(string) (string, error) { return "/fake", nil }})
	defer m.Close()
	servers := slices.Clone(fakeServers)
	servers[0].BuildFiles = []string{"fake.toml"}
	var mu sync.Mutex
	var took []time.Duration
	var wg sync.WaitGroup
	for run := range runs {
		wg.Go(func() {
			ds := sharedRun(t, m, servers, root, run, cycles)
			mu.Lock()
			took = append(took, ds...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if n := f.maxLive.Load(); n > 3 {
		t.Errorf("%d servers ran at once, with room for 3", n)
	}
	return took
}

// sharedRun is one run of sharedRuns.
func sharedRun(t testing.TB, m *langserver.Manager, servers langserver.Servers, root string, run, cycles int) []time.Duration {
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer ws.Close()
	s := langserver.NewSession(m, ws, servers)
	defer s.Close()
	ctx := context.Background()
	if run%4 == 3 {
		if _, err := ws.Stage("fake.toml", fmt.Sprintf("run = %d\n", run)); err != nil {
			t.Error(err)
		}
		s.AfterBuildFileEdit(ctx, filepath.Join(root, "fake.toml"))
	}
	renamed := map[string]bool{} // files whose last change was the server's edit for this run
	var took []time.Duration
	for cycle := range cycles {
		rel := sharedRunsFiles[(run+cycle)%len(sharedRunsFiles)]
		step := fmt.Sprintf("run %d cycle %d", run, cycle)
		if cycle%5 == 4 && ws.Changes() != nil {
			rel = ws.Changes()[len(ws.Changes())-1].Path
			if rel == "fake.toml" {
				continue
			}
			res, err := tool(t, s, "rename").Execute(ctx, []byte(fmt.Sprintf(`{"symbol":"run","path":%q,"new_name":"walk"}`, rel)))
			now, _ := ws.Read(rel)
			if err != nil || !strings.HasPrefix(now.Text, "server edit run ") {
				t.Errorf("%s: the server's edit of %s did not reach the run that asked: %v %s (%q)", step, rel, err, res.Text, now.Text)
			}
			renamed[rel] = true
			continue
		}
		text := step + " of " + rel + "\n"
		if cycle%2 == 0 {
			text += "BROKEN\n"
		}
		before, _ := ws.Read(rel)
		if _, err := ws.Stage(rel, text); err != nil {
			t.Error(err)
			return took
		}
		renamed[rel] = false
		start := time.Now()
		r := s.AfterEdit(ctx, filepath.Join(root, rel), before.Text)
		took = append(took, time.Since(start))
		judgeReport(t, ws, r, step)
	}
	for _, c := range ws.Changes() {
		if strings.HasPrefix(c.New, "server edit ") != renamed[c.Path] {
			t.Errorf("run %d: %s is %q: a server's edit for another run reached it", run, c.Path, c.New)
		}
	}
	return took
}

// TestRunsOnOneSharedServer: concurrent runs on one shared server never
// get a verdict on another run's text, nor another run's server edit,
// and stay within the servers' room.
func TestRunsOnOneSharedServer(t *testing.T) {
	sharedRuns(t, 6, 10)
}

// BenchmarkTwentyRunsOnOneServer: 200 edit/check cycles, 20 concurrent
// runs of 10 on one shared server (sharedRuns' checks all hold): the
// time of one check (ms/p50) and the cycles done per second.
func BenchmarkTwentyRunsOnOneServer(b *testing.B) {
	for range b.N {
		start := time.Now()
		took := sharedRuns(b, 20, 10)
		b.ReportMetric(float64(len(took))/time.Since(start).Seconds(), "checks/s")
		p50(b, took)
	}
}
