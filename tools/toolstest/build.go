package toolstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// build is one package of the module, built once per test process.
type build struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

var (
	buildsMu sync.Mutex
	builds   = map[string]*build{}
)

// ModuleRoot is the repository root.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Build builds the module's package pkg ("./cmd/agent-lsp") once per test
// process and returns the executable's path, for tests that drive a real
// binary.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	buildsMu.Lock()
	b, ok := builds[pkg]
	if !ok {
		b = &build{}
		builds[pkg] = b
	}
	buildsMu.Unlock()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "agent-lsp-build-")
		if err != nil {
			b.err = err
			return
		}
		b.dir, b.path = dir, filepath.Join(dir, filepath.Base(pkg))
		cmd := exec.Command("go", "build", "-o", b.path, pkg)
		cmd.Dir = ModuleRoot()
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("building %s: %v\n%s", pkg, b.err, b.out)
	}
	return b.path
}

// Node returns the node executable for a test that needs the npm package
// pkg installed in dir/node_modules (by `make deps`). It skips the test
// without node, and without the package unless in CI, where its absence
// means `make deps` did not run.
func Node(t testing.TB, dir, pkg string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg)); err != nil {
		rel, _ := filepath.Rel(ModuleRoot(), dir)
		if os.Getenv("CI") != "" {
			t.Fatalf("%s missing: `make deps` must run npm ci in %s", pkg, rel)
		}
		t.Skipf("run `make deps` (npm ci in %s) to enable", rel)
	}
	return node
}

// removeBuilds removes what Build built, when the tests are done.
func removeBuilds() {
	buildsMu.Lock()
	defer buildsMu.Unlock()
	for _, b := range builds {
		if b.dir != "" {
			os.RemoveAll(b.dir)
		}
	}
}
