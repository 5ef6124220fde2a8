package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// parentEnv makes this test binary the process that runs a command and is
// then killed, for TestCommandDiesWithItsParent.
const parentEnv = "AGENT_LSP_TEST_SANDBOX_PARENT"

// parentDirEnv is the test's temporary dir the killed parent works in, so
// that nothing of it outlives the test.
const parentDirEnv = "AGENT_LSP_TEST_SANDBOX_PARENT_DIR"

func TestMain(m *testing.M) {
	if marker := os.Getenv(parentEnv); marker != "" {
		dir := os.Getenv(parentDirEnv)
		var out strings.Builder
		_, err := Run(context.Background(), Spec{Command: "sleep " + marker, View: View{Copy: dir, Root: dir, Lower: dir, Upper: dir + "/u", Work: dir + "/w"},
			Cache: dir, Stdout: &out, Stderr: &out})
		os.Stderr.WriteString(out.String())
		if err != nil {
			os.Stderr.WriteString(err.Error())
		}
		os.Exit(3)
	}
	if childMode() {
		return
	}
	toolstest.Main(m)
}

func TestCommandDiesWithItsParent(t *testing.T) {
	if c := Probe(); c.Level != Full {
		t.Skipf("sandbox level %s: without a pid namespace the command's own children can outlive a killed parent", c.Level)
	}
	marker := toolstest.Marker()
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), parentEnv+"="+marker, parentDirEnv+"="+t.TempDir())
	var errs strings.Builder
	parent.Stderr = &errs
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(toolstest.Alive(marker)) == 0 {
		if time.Now().After(deadline) {
			parent.Process.Kill()
			t.Fatalf("the command never started: %s", errs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	parent.Process.Signal(syscall.SIGKILL)
	parent.Wait()
	toolstest.Poll(t, "the command to die with its parent", func() bool { return len(toolstest.Alive(marker)) == 0 })
}
