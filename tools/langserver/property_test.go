package langserver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// TestNoVerdictIsComputedOnAnotherText: runs share one server that
// answers late and out of order (each text's diagnostics after a random
// delay, the text before it again after them), and make random sequences
// of edits of the same files (some broken, some not), cancelled checks
// and reopenings (a run's end and the next one's start). Every verdict is
// on the text the run holds: each error it names was computed on that
// text, a broken text is never called clean, a sound one never broken.
func TestNoVerdictIsComputedOnAnotherText(t *testing.T) {
	const runs, steps = 4, 12
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("AGENT_LSP_TEST_SEED"), 10, 64); err == nil {
		seed = s // a failure's, to play it again
	}
	t.Logf("seed %d (AGENT_LSP_TEST_SEED plays it again)", seed)
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, 0))
	f := &fakeServer{tagged: true, jitter: func() time.Duration {
		mu.Lock() // called under the fake's lock only
		defer mu.Unlock()
		return time.Duration(rng.IntN(40)) * time.Millisecond
	}}
	root := toolstest.WriteTree(t, map[string]string{"a.fake": "a on disk\n", "b.fake": "b on disk\n"})
	m := langserver.NewManager(langserver.Options{Start: f.start, Timeout: 2 * time.Second, LookPath: func(string) (string, error) { return "/fake", nil }})
	defer m.Close()
	var wg sync.WaitGroup
	for run := range runs {
		mu.Lock()
		r := rand.New(rand.NewPCG(seed, uint64(run+1)))
		mu.Unlock()
		wg.Go(func() { playRun(t, m, root, run, steps, r) })
	}
	wg.Wait()
}

// playRun is one run's random sequence; it fails t where a verdict is
// not on the text the run holds.
func playRun(t *testing.T, m *langserver.Manager, root string, run, steps int, r *rand.Rand) {
	ws, s := openRun(t, m, root)
	defer func() { s.Close(); ws.Close() }()
	for step := range steps {
		switch op := r.IntN(10); {
		case op == 0: // the run ends; the next one starts on the same server
			s.Close()
			ws.Close()
			ws, s = openRun(t, m, root)
		default:
			rel := []string{"a.fake", "b.fake"}[r.IntN(2)]
			text := fmt.Sprintf("run %d step %d of %s\n", run, step, rel)
			if r.IntN(2) == 0 {
				text += "BROKEN\n"
			}
			before, _ := ws.Read(rel)
			if _, err := ws.Stage(rel, text); err != nil {
				t.Error(err)
				return
			}
			ctx, cancel := context.WithCancel(context.Background())
			if op == 1 { // the user cancels the run while the check waits
				time.AfterFunc(time.Duration(r.IntN(30))*time.Millisecond, cancel)
			}
			report := s.AfterEdit(ctx, filepath.Join(root, rel), before.Text)
			cancel()
			judgeReport(t, ws, report, fmt.Sprintf("run %d step %d (%s)", run, step, rel))
		}
	}
}

func openRun(t *testing.T, m *langserver.Manager, root string) (*tools.Workspace, *langserver.Session) {
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ws, langserver.NewSession(m, ws, plainFake)
}

// judgeReport fails t where the report is not on the texts ws holds.
func judgeReport(t testing.TB, ws *tools.Workspace, r langserver.Report, step string) {
	named := map[string]bool{}
	for _, d := range r.New {
		named[d.Path] = true
		held, _ := ws.Read(d.Path)
		first := strings.SplitN(held.Text, "\n", 2)[0]
		if !strings.Contains(d.Message, "(text: "+first+")") || !strings.Contains(held.Text, "BROKEN") {
			t.Errorf("%s: an error of %s computed on another text than the run's %q: %s", step, d.Path, held.Text, d.Message)
		}
	}
	unknown := map[string]bool{}
	for _, u := range r.Unknown {
		for _, what := range strings.Split(u.What, ", ") {
			unknown[what] = true
		}
	}
	if r.Verdict() == langserver.NoVerdict {
		return // nothing was said of any file (the server could not be used)
	}
	for _, c := range ws.Changes() {
		if strings.Contains(c.New, "BROKEN") && !named[c.Path] && !unknown[c.Path] {
			t.Errorf("%s: %s is broken in the run's text %q, yet called clean: %s", step, c.Path, c.New, r.Text())
		}
	}
}
