package toolstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// serverInstalls says how `.ci/run` installs each language server the
// tests start (pinned where a registry has versions), for the skip or
// failure that names it.
var serverInstalls = map[string]string{
	"gopls":                      "go install golang.org/x/tools/gopls@v0.23.0",
	"pyright-langserver":         "make deps (npm ci in tools/toolstest/testdata/servers)",
	"typescript-language-server": "make deps (npm ci in tools/toolstest/testdata/servers)",
	"clangd":                     "apt-get install clangd",
	"rust-analyzer":              "rustup component add rust-analyzer",
}

// ServersDir is the npm package that pins the Node language servers
// (pyright, typescript-language-server and its typescript), installed by
// `make deps`.
func ServersDir() string {
	return filepath.Join(ModuleRoot(), "tools", "toolstest", "testdata", "servers")
}

// LanguageServer returns the path of the language server name (gopls,
// pyright-langserver, typescript-language-server, clangd, rust-analyzer)
// as .ci/run installs it: on PATH, in $(go env GOPATH)/bin, or in
// ServersDir's node_modules/.bin. Missing, it skips the test with the
// install command, or fails it in CI (CI set), where .ci/run installs them.
func LanguageServer(t testing.TB, name string) string {
	t.Helper()
	if p := FindLanguageServer(name); p != "" {
		return p
	}
	how := serverInstalls[name]
	if how == "" {
		how = "install it"
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("language server %s missing: .ci/run installs it (%s)", name, how)
	}
	t.Skipf("language server %s not installed (%s)", name, how)
	return ""
}

// FindLanguageServer is LanguageServer's search, "" when name is nowhere:
// for benchmarks and for tests that need no testing.TB to skip.
func FindLanguageServer(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return absolute(p)
	}
	for _, d := range []string{goBin(), filepath.Join(ServersDir(), "node_modules", ".bin")} {
		if d == "" {
			continue
		}
		if p, err := exec.LookPath(filepath.Join(d, name)); err == nil {
			return absolute(p)
		}
	}
	return ""
}

// goBin is where `go install` puts programs: GOBIN, else the first
// GOPATH entry's bin.
func goBin() string {
	out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output()
	if err != nil {
		return ""
	}
	gobin, gopath, _ := strings.Cut(string(out), "\n") // one line each, GOBIN's often empty
	if gobin = strings.TrimSpace(gobin); gobin != "" {
		return gobin
	}
	first, _, _ := strings.Cut(strings.TrimSpace(gopath), string(filepath.ListSeparator))
	if first == "" {
		return ""
	}
	return filepath.Join(first, "bin")
}

func absolute(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
