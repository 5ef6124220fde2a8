package testrun_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/sandbox"
	"github.com/agent-lsp/agent-lsp/tools/testrun"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestMain(m *testing.M) { toolstest.Main(m) }

// goModule is a module whose b.Two (tested in b) calls a.Add, and whose
// c has a test that fails before any run.
var goModule = map[string]string{
	"go.mod":      "module example.com/m\n\ngo 1.22\n",
	"a/a.go":      "package a\n\n// Add adds.\nfunc Add(x, y int) int { return x + y }\n\n// Sub subtracts.\nfunc Sub(x, y int) int { return x - y }\n",
	"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) {\n\tif Sub(3, 2) != 1 {\n\t\tt.Fatal(\"3-2\")\n\t}\n}\n",
	"b/b.go":      "package b\n\nimport \"example.com/m/a\"\n\n// Two is 2.\nfunc Two() int { return a.Add(1, 1) }\n",
	"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif got := Two(); got != 2 {\n\t\tt.Errorf(\"Two() = %d, want 2\", got)\n\t}\n}\n",
	"c/c.go":      "package c\n\n// Three is 3.\nfunc Three() int { return 3 }\n",
	"c/c_test.go": "package c\n\nimport \"testing\"\n\nfunc TestOld(t *testing.T) { t.Error(\"failing since before\") }\n",
	"d/d.go":      "package d\n\n// D is unrelated.\nfunc D() int { return 4 }\n",
	"d/d_test.go": "package d\n\nimport \"testing\"\n\nfunc TestD(t *testing.T) {}\n",
}

// workspace opens files as a run's workspace.
func workspace(t *testing.T, files map[string]string) (*tools.Workspace, testrun.Options) {
	t.Helper()
	ws, err := tools.NewWorkspace(toolstest.WriteTree(t, files), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, testrun.Options{}
}

func stage(t *testing.T, ws *tools.Workspace, rel, old, new string) {
	t.Helper()
	f, err := ws.Read(rel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Stage(rel, strings.Replace(f.Text, old, new, 1)); err != nil {
		t.Fatal(err)
	}
}

// TestAGoChangeBreaksATestInAnImportingPackage: a's Add changed to
// subtract: b's test (b imports a) fails with it and passed without it,
// named with its file; c's test failed before and is not blamed; d, which
// neither holds nor imports a changed file, is not run; nothing is
// written to disk. Fixed, the verdict turns to pass.
func TestAGoChangeBreaksATestInAnImportingPackage(t *testing.T) {
	ws, opts := workspace(t, goModule)
	stage(t, ws, "a/a.go", "x + y", "x - y")
	stage(t, ws, "c/c.go", "return 3", "return 1 + 2")
	v := testrun.New(ws, opts).Run(context.Background())
	text := v.Text()
	t.Logf("%s (%s)", text, v.Took)
	if v.Kind != testrun.Broke || len(v.Broke) != 1 || !strings.Contains(text, "b: TestTwo (b/b_test.go:7)") || !strings.Contains(text, "Two() = 0, want 2") {
		t.Errorf("the verdict names the broken test:\n%s", text)
	}
	if len(v.Before) != 1 || !strings.Contains(text, "c: TestOld") || strings.Contains(text, "d:") {
		t.Errorf("c's old failure is not the run's, d is not run:\n%s", text)
	}
	if disk, _ := os.ReadFile(filepath.Join(ws.Root(), "a/a.go")); string(disk) != goModule["a/a.go"] {
		t.Errorf("a/a.go written: %q", disk)
	}

	stage(t, ws, "a/a.go", "return x - y }\n\n// Sub", "return y + x }\n\n// Sub")
	v = testrun.New(ws, opts).Run(context.Background())
	if v.Kind != testrun.Passed || !strings.Contains(v.Text(), "Tests: 2 test(s) in 3 packages pass with the proposal.") || len(v.Before) != 1 {
		t.Errorf("fixed:\n%s", v.Text())
	}
}

// TestATestThatLoopsSpendsTheBudget: a test that never ends is "not run:
// budget", and nothing of it is left running.
func TestATestThatLoopsSpendsTheBudget(t *testing.T) {
	marker := "loop-" + toolstest.Marker()
	ws, opts := workspace(t, map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"a/a.go":      "package a\n\n// N is 1.\nconst N = 1\n",
		"a/a_test.go": "package a\n\nimport (\n\t\"os/exec\"\n\t\"testing\"\n)\n\nfunc TestLoop(t *testing.T) {\n\texec.Command(\"sleep\", \"300\", \"" + marker + "\").Start()\n\tfor {\n\t}\n}\n",
	})
	stage(t, ws, "a/a.go", "N = 1", "N = 2")
	opts.Budget = 3 * time.Second
	v := testrun.New(ws, opts).Run(context.Background())
	if v.Kind != testrun.NotRun || !strings.Contains(v.Text(), "Tests: not run: budget:") {
		t.Errorf("%s", v.Text())
	}
	if pids := toolstest.Alive(marker); len(pids) > 0 {
		t.Errorf("left running: %v", pids)
	}
}

// pyProject is a project whose test imports calc through shapes, and one
// test that fails before any run.
var pyProject = map[string]string{
	"pyproject.toml":       "[project]\nname = \"p\"\nversion = \"0\"\n",
	"calc.py":              "def add(x, y):\n    return x + y\n",
	"shapes.py":            "from calc import add\n\n\ndef perimeter(w, h):\n    return add(add(w, h), add(w, h))\n",
	"other.py":             "def nothing():\n    return None\n",
	"tests/test_shapes.py": "from shapes import perimeter\n\n\ndef test_square():\n    assert perimeter(1, 1) == 4\n",
	"tests/test_old.py":    "import calc\n\n\ndef test_old():\n    assert calc.add(1, 1) == 3, \"failing since before\"\n",
	"tests/test_other.py":  "import other\n\n\ndef test_nothing():\n    assert other.nothing() is None\n",
}

// TestAPythonChangeBreaksATestThatImportsItThroughAModule: calc changed:
// tests/test_shapes.py (through shapes) fails with it and passed without
// it; test_old failed before; test_other (importing neither) is not run.
func TestAPythonChangeBreaksATestThatImportsItThroughAModule(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	ws, opts := workspace(t, pyProject)
	stage(t, ws, "calc.py", "x + y", "x - y")
	v := testrun.New(ws, opts).Run(context.Background())
	text := v.Text()
	t.Logf("%s (%s)", text, v.Took)
	if v.Kind != testrun.Broke || len(v.Broke) != 1 || !strings.Contains(text, "tests/test_shapes.py: test_square (tests/test_shapes.py:5)") {
		t.Errorf("the verdict names the broken test:\n%s", text)
	}
	if len(v.Before) != 1 || !strings.Contains(text, "test_old") || strings.Contains(text, "test_nothing") {
		t.Errorf("test_old's failure is not the run's; test_other is not run:\n%s", text)
	}
	stage(t, ws, "calc.py", "x - y", "y + x")
	if v = testrun.New(ws, opts).Run(context.Background()); v.Kind != testrun.Passed || !strings.Contains(v.Text(), "Tests: 1 test(s) in 2 files pass with the proposal.") {
		t.Errorf("fixed:\n%s", v.Text())
	}
}

// TestNoTestCommandIsKnown: a change of a file no selection knows, and no
// checks, is "not run", said why.
func TestNoTestCommandIsKnown(t *testing.T) {
	ws, opts := workspace(t, map[string]string{"main.ts": "export const x = 1;\n"})
	stage(t, ws, "main.ts", "1", "2")
	if v := testrun.New(ws, opts).Run(context.Background()); v.Kind != testrun.NotRun || !strings.Contains(v.Text(), "no test command is known") {
		t.Errorf("%s", v.Text())
	}
	opts.Checks = []string{"grep -q 2 main.ts"}
	if v := testrun.New(ws, opts).Run(context.Background()); v.Kind != testrun.Passed {
		t.Errorf("the user's check: %s", v.Text())
	}
}

// TestADeniedRunRunsNothing: where the user is asked and says no, no test
// runs.
func TestADeniedRunRunsNothing(t *testing.T) {
	ws, opts := workspace(t, goModule)
	stage(t, ws, "a/a.go", "x + y", "x - y")
	var asked [][]string
	opts.Ask = func(_ context.Context, commands []string) error {
		asked = append(asked, commands)
		return errNo
	}
	r := testrun.New(ws, opts)
	for range 2 {
		if v := r.Run(context.Background()); v.Kind != testrun.NotRun || !strings.Contains(v.Text(), "not run: you did not allow") {
			t.Errorf("%s", v.Text())
		}
	}
	if len(asked) != 1 || !strings.HasPrefix(asked[0][0], "go test -json") {
		t.Errorf("asked %q (once per run)", asked)
	}
}

type denial struct{}

func (denial) Error() string { return "you did not allow running the project's tests" }

var errNo = denial{}

// TestAPytestThatLoopsSpendsTheBudget: a pytest test that never ends is
// "not run: budget", and nothing of it is left running.
func TestAPytestThatLoopsSpendsTheBudget(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	marker := "loop-" + toolstest.Marker()
	ws, opts := workspace(t, map[string]string{
		"pyproject.toml":  "[project]\nname = \"p\"\nversion = \"0\"\n",
		"calc.py":         "N = 1\n",
		"tests/test_n.py": "import subprocess\nimport calc\n\n\ndef test_loop():\n    subprocess.Popen([\"sleep\", \"300\", \"" + marker + "\"])\n    while calc.N:\n        pass\n",
	})
	stage(t, ws, "calc.py", "N = 1", "N = 2")
	opts.Budget = 3 * time.Second
	v := testrun.New(ws, opts).Run(context.Background())
	if v.Kind != testrun.NotRun || !strings.Contains(v.Text(), "Tests: not run: budget: pytest tests/test_n.py went past the 3s") {
		t.Errorf("%s", v.Text())
	}
	if pids := toolstest.Alive(marker); len(pids) > 0 {
		t.Errorf("left running: %v", pids)
	}
}

// TestATestIsHeldByTheSandbox: a test that writes outside the view,
// reaches the network and starts what would outlive it is held as any
// command is: the file outside is not written, the listener gets nothing,
// nothing is left running. Below level full the tests are asked for first
// (TestADeniedRunRunsNothing), and nothing holds them once allowed.
func TestATestIsHeldByTheSandbox(t *testing.T) {
	if caps := tools.SandboxLevel(); caps.Level != sandbox.Full {
		t.Skipf("at level %s tests are asked for first; nothing holds them once allowed", caps)
	}
	outside := filepath.Join(t.TempDir(), "written-by-a-test")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	reached := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
			reached <- struct{}{}
		}
	}()
	marker := "outlive-" + toolstest.Marker()
	ws, opts := workspace(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": "package a\n\n// N is 1.\nconst N = 1\n",
		"a/a_test.go": fmt.Sprintf("package a\n\nimport (\n\t\"net\"\n\t\"os\"\n\t\"os/exec\"\n\t\"testing\"\n)\n\nfunc TestEscape(t *testing.T) {\n"+
			"\tos.WriteFile(%q, []byte(\"x\"), 0o600)\n\tnet.Dial(\"tcp\", %q)\n\texec.Command(\"sleep\", \"300\", %q).Start()\n}\n",
			outside, ln.Addr().String(), marker),
	})
	stage(t, ws, "a/a.go", "N = 1", "N = 2")
	v := testrun.New(ws, opts).Run(context.Background())
	if v.Kind != testrun.Passed {
		t.Errorf("%s", v.Text())
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("a test wrote %s, outside the view", outside)
	}
	select {
	case <-reached:
		t.Errorf("a test reached the test's listener")
	default:
	}
	if pids := toolstest.Alive(marker); len(pids) > 0 {
		t.Errorf("left running: %v", pids)
	}
}
