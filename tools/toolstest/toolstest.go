// Package toolstest holds helpers for tests that need a workspace on disk.
package toolstest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// WriteTree creates a temporary workspace holding files (slash path →
// content) and returns its root, with symlinks resolved (as the workspace
// view reports paths).
func WriteTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	WriteFiles(t, root, files)
	return root
}

// WriteFiles creates files (slash path → content) under an existing root.
func WriteFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Home returns an empty home for commands a test runs, with Go's telemetry
// off: the go command otherwise starts a child that goes on writing
// ~/.config/go/telemetry after the command ends, racing the test's cleanup.
// (GOTELEMETRY=off in the environment does not stop it; only the mode file
// does.)
func Home(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	WriteFiles(t, home, map[string]string{".config/go/telemetry/mode": "off\n"})
	return home
}

// Alive lists the processes whose command line holds marker (a number no
// other process would have on its command line, e.g. `sleep 4123.25`), so a
// test can tell whether a command left anything running.
func Alive(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && bytes.Contains(cmdline, []byte(marker)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Marker returns a sleep duration unique to this moment, to find the
// processes of one command by their command line.
func Marker() string {
	return fmt.Sprintf("%d.%d", 4000+time.Now().UnixNano()%5000, time.Now().UnixNano()%997+1)
}

// Poll waits up to 20 s for cond, checking every few milliseconds: for what
// sends no event, such as a process starting or dying.
func Poll(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ChildCacheEnv names the XDG_CACHE_HOME of a test binary started as a
// child by a test (see Main).
const ChildCacheEnv = "AGENT_LSP_TEST_CHILD_CACHE"

// Main runs a package's tests with XDG_CACHE_HOME in a temporary directory,
// so the sandboxes' private homes and build caches stay out of the user's
// cache, and removes it afterwards. Call it from TestMain.
func Main(m *testing.M) {
	// A test that runs this binary as a child it kills (SIGKILL: no clean-up
	// runs) names the child's dir itself, inside its own temporary dir.
	dir := os.Getenv(ChildCacheEnv)
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "agent-lsp-test-cache-"); err != nil {
			panic(err)
		}
	}
	// The go command the tests start (to build the binary) keeps the
	// developer's build cache, which defaults to one under XDG_CACHE_HOME.
	if os.Getenv("GOCACHE") == "" {
		if userCache, err := os.UserCacheDir(); err == nil {
			os.Setenv("GOCACHE", filepath.Join(userCache, "go-build"))
		}
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	removeBuilds()
	os.RemoveAll(dir)
	os.Exit(code)
}
