package agent_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// canaryEnv holds the canary in the child that TestAnAGENTSMdLinkedToProcSelfEnviron
// starts: /proc/self/environ is the environment a process started with, so
// the canary must be there from the start.
const canaryEnv = "AGENT_LSP_TEST_ENVIRON_CANARY"

func TestAnAGENTSMdLinkedToProcSelfEnvironNeverReachesTheModel(t *testing.T) {
	canary := os.Getenv(canaryEnv)
	if canary == "" {
		// Run this test again in a child whose environment holds a canary.
		cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), canaryEnv+"=sk-canary-"+toolstest.Marker(), toolstest.ChildCacheEnv+"="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
			t.Fatalf("the child: %v\n%s", err, out)
		}
		return
	}
	root, _, _ := hostileTree(t)
	link := filepath.Join(root, "AGENTS.md")
	symlink(t, "/proc/self/environ", link)
	if data, err := os.ReadFile(link); err != nil || !strings.Contains(string(data), canary) {
		t.Fatalf("control: a naive read of the link does not find the canary (%v): the test is blind", err)
	}
	system, notices := firstRequest(t, root)
	if strings.Contains(system, canary) || strings.Contains(system, canaryEnv) {
		t.Fatalf("the model got the environment:\n%s", system)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "a link leads outside the root") {
		t.Fatalf("notices %q", notices)
	}
}

// TestAnAGENTSMdLinkedToStdinNeitherHangsNorReadsIt: a language server's
// stdin is its LSP input; a run must not read it, nor wait on it. Here fd 0
// is a pipe holding a canary whose writer stays open, as an editor's does.
func TestAnAGENTSMdLinkedToStdinNeitherHangsNorReadsIt(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := unix.Dup(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Dup3(int(r.Fd()), 0, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		unix.Dup3(saved, 0, 0)
		unix.Close(saved)
		r.Close()
		w.Close()
	})
	const canary = "Content-Length: 52\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"shutdown-canary\"}"
	if _, err := w.WriteString(canary); err != nil {
		t.Fatal(err)
	}
	root, _, _ := hostileTree(t)
	link := filepath.Join(root, "AGENTS.md")
	symlink(t, "/dev/stdin", link)
	system, notices := firstRequest(t, root)
	if strings.Contains(system, "shutdown-canary") || len(notices) != 1 || !strings.Contains(notices[0], "a link leads outside the root") {
		t.Fatalf("notices %q, prompt:\n%s", notices, system)
	}
	// Control: the link does reach stdin, and the run left its input there.
	f, err := os.Open(link)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, len(canary))
	if n, err := f.Read(buf); err != nil || string(buf[:n]) != canary {
		t.Fatalf("control: read %q through the link (%v)", buf[:n], err)
	}
}
