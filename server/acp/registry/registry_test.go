package registry_test

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/server/acp/registry"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

func TestMain(m *testing.M) { toolstest.Main(m) }

// registryTargets are the platform names of the registry's format.
var registryTargets = []string{"darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-aarch64", "windows-x86_64"}

// checkEntry checks agent.json as the registry's published format says
// (agent.schema.json, FORMAT.md, and what its build script refuses): the
// required fields, an id of lowercase letters, digits and hyphens, a
// semantic version matching the archives' addresses, absolute URIs, only
// the known targets, every OS family, and nothing the schema does not name.
func checkEntry(t *testing.T, doc []byte, version, baseURL string) {
	t.Helper()
	var e map[string]any
	if err := json.Unmarshal(doc, &e); err != nil {
		t.Fatalf("agent.json: %v", err)
	}
	known := []string{"id", "name", "version", "description", "repository", "website", "authors", "license", "license_url", "icon", "distribution"}
	for k := range e {
		if !slices.Contains(known, k) {
			t.Errorf("agent.json: field %q is not in the registry's format", k)
		}
	}
	str := func(k string) string { s, _ := e[k].(string); return s }
	for _, k := range []string{"id", "name", "version", "description", "repository", "license", "icon"} {
		if str(k) == "" {
			t.Errorf("agent.json: %s missing or empty", k)
		}
	}
	if !regexp.MustCompile(`^[a-z][a-z0-9-]*$`).MatchString(str("id")) {
		t.Errorf("id %q", str("id"))
	}
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+`).MatchString(str("version")) || str("version") != version {
		t.Errorf("version %q, want %q", str("version"), version)
	}
	if u, err := url.Parse(str("repository")); err != nil || u.Scheme != "https" || u.Host == "" {
		t.Errorf("repository %q is not a URI", str("repository"))
	}
	if authors, ok := e["authors"].([]any); !ok || len(authors) == 0 {
		t.Errorf("authors %v", e["authors"])
	}
	dist, _ := e["distribution"].(map[string]any)
	if len(dist) != 1 || dist["binary"] == nil {
		t.Fatalf("distribution %v, want binary alone", dist)
	}
	binary, _ := dist["binary"].(map[string]any)
	if got := slices.Sorted(maps.Keys(binary)); !slices.Equal(got, registryTargets) {
		t.Errorf("targets %v, want %v", got, registryTargets)
	}
	for target, v := range binary {
		tg, _ := v.(map[string]any)
		for k := range tg {
			if !slices.Contains([]string{"archive", "sha256", "cmd", "args", "env"}, k) {
				t.Errorf("%s: field %q is not in the registry's format", target, k)
			}
		}
		archive, _ := tg["archive"].(string)
		u, err := url.Parse(archive)
		ext := ".tar.gz"
		if strings.HasPrefix(target, "windows") {
			ext = ".zip"
		}
		if err != nil || u.Scheme != "https" || !strings.HasPrefix(archive, baseURL+"/") || !strings.HasSuffix(archive, "-"+target+ext) || !strings.Contains(archive, version) || strings.Contains(archive, "/latest/") {
			t.Errorf("%s: archive %q", target, archive)
		}
		// The registry reads a release's version from its address and
		// refuses one that is not the entry's.
		if m := regexp.MustCompile(`/(?:download|releases)/v?([\d.]+)/`).FindStringSubmatch(archive); m != nil && m[1] != version {
			t.Errorf("%s: the address says version %s, the entry %s", target, m[1], version)
		}
		cmd, _ := tg["cmd"].(string)
		args, _ := json.Marshal(tg["args"])
		if want := "./agent-lsp"; cmd != want && cmd != want+".exe" || string(args) != `["acp"]` {
			t.Errorf("%s: cmd %q args %s, want ./agent-lsp acp", target, cmd, args)
		}
	}
}

// checkIcon checks the icon as the registry does: an SVG, 16×16, square,
// in currentColor, with no colour of its own in fill, stroke or style.
func checkIcon(t *testing.T, svg string) {
	t.Helper()
	w := regexp.MustCompile(`<svg[^>]*\swidth=["'](\d+)`).FindStringSubmatch(svg)
	h := regexp.MustCompile(`<svg[^>]*\sheight=["'](\d+)`).FindStringSubmatch(svg)
	if w == nil || h == nil || w[1] != "16" || h[1] != "16" || !strings.Contains(svg, `viewBox="0 0 16 16"`) {
		t.Errorf("icon is not 16×16: %s", svg)
	}
	for _, m := range regexp.MustCompile(`(?i)\b(fill|stroke)\s*=\s*["']([^"']+)["']`).FindAllStringSubmatch(svg, -1) {
		if v := strings.ToLower(strings.TrimSpace(m[2])); v != "currentcolor" && v != "none" && v != "inherit" {
			t.Errorf("icon has %s=%q: a colour of its own", m[1], m[2])
		}
	}
	if strings.Contains(svg, "style=") {
		t.Error("icon has a style attribute")
	}
	if !strings.Contains(svg, "currentColor") {
		t.Error("icon does not use currentColor")
	}
}

// The entry and icon `make release` writes are the registry's format.
func TestTheEntryIsTheRegistrysFormat(t *testing.T) {
	const base = "https://github.com/agent-lsp/agent-lsp/releases/download/v1.4.2"
	doc, err := json.Marshal(registry.Entry(registry.Version("v1.4.2"), base))
	if err != nil {
		t.Fatal(err)
	}
	checkEntry(t, doc, "1.4.2", base)
	checkIcon(t, string(registry.Icon))
	for build, want := range map[string]string{"v0.3.0": "0.3.0", "v0.3.0-4-gabc123": "0.3.0-4-gabc123", "abc1234-dirty": "0.0.0-abc1234-dirty", "(devel)": "0.0.0-devel"} {
		if got := registry.Version(build); got != want {
			t.Errorf("Version(%q) = %q, want %q", build, got, want)
		}
	}
}

// The linux archive, as the registry's client gets it: extracted, its
// binary matches its checksum and its agent.json is the entry; launched
// as the entry says, with the registry's handshake (initialize from a
// client with _meta terminal-auth, in an empty home), it answers with a
// terminal sign-in method.
func TestTheLinuxArchiveAnswersTheRegistrysHandshake(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("runs the linux binary of this machine's architecture")
	}
	bin, err := os.ReadFile(servertest.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()
	for _, p := range registry.Platforms {
		data := []byte("not this machine's: only the host's archive is run\n")
		if p.GOOS == runtime.GOOS && p.GOARCH == runtime.GOARCH {
			data = bin
		}
		name := "agent-lsp-" + p.GOOS + "-" + p.GOARCH
		if p.GOOS == "windows" {
			name += ".exe"
		}
		if err := os.WriteFile(filepath.Join(dist, name), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const base = "https://github.com/agent-lsp/agent-lsp/releases/download/v0.9.0"
	// The fastest compression: the release's packs the same files, and
	// under the race detector the best takes half a minute.
	entry, err := registry.Pack(dist, "0.9.0", base, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	target := map[string]string{"amd64": "linux-x86_64", "arm64": "linux-aarch64"}[runtime.GOARCH]
	archive := entry.Distribution.Binary[target]
	dir := t.TempDir()
	extract(t, filepath.Join(dist, filepath.Base(archive.Archive)), dir)

	inside, err := os.ReadFile(filepath.Join(dir, "agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkEntry(t, inside, "0.9.0", base)
	if published, _ := os.ReadFile(filepath.Join(dist, "agent.json")); string(published) != string(inside) {
		t.Error("the archive's agent.json is not the one published beside the archives")
	}
	icon, _ := os.ReadFile(filepath.Join(dir, "icon.svg"))
	checkIcon(t, string(icon))
	exe := filepath.Join(dir, strings.TrimPrefix(archive.Cmd, "./"))
	got, _ := os.ReadFile(exe)
	sum := sha256.Sum256(got)
	if want, _ := os.ReadFile(exe + ".sha256"); string(want) != hex.EncodeToString(sum[:])+"  agent-lsp\n" {
		t.Errorf("checksum file %q does not match the binary's sum %x", want, sum)
	}
	if fi, err := os.Stat(exe); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("the binary is not executable: %v %v", fi, err)
	}
	methods := handshake(t, dir, append([]string{exe}, archive.Args...))
	var terminal bool
	for _, m := range methods {
		meta, _ := m["_meta"].(map[string]any)
		if m["type"] == "terminal" || meta["terminal-auth"] != nil {
			args, _ := json.Marshal(m["args"])
			terminal = string(args) == `["setup"]`
		}
	}
	if !terminal {
		t.Errorf("authMethods %v: no terminal method running `agent-lsp setup`", methods)
	}
}

// extract unpacks a .tar.gz as the registry's client does.
func extract(t *testing.T, archive, dir string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil || h.Typeflag != tar.TypeReg || strings.Contains(h.Name, "/") {
			t.Fatalf("archive member %+v: %v", h, err)
		}
		data, _ := io.ReadAll(tr)
		if err := os.WriteFile(filepath.Join(dir, h.Name), data, os.FileMode(h.Mode)); err != nil {
			t.Fatal(err)
		}
	}
}

// handshake is the registry's auth check: launch argv in dir with an
// empty home, send initialize (newline-delimited JSON-RPC) from a client
// with terminal, fs and _meta terminal-auth, and read the first answer.
func handshake(t *testing.T, dir string, argv []string) []map[string]any {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "TERM=dumb", "PATH=" + os.Getenv("PATH"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache")}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"ACP Registry Validator","version":"1.0.0"},"clientCapabilities":{"terminal":true,"fs":{"readTextFile":true,"writeTextFile":true},"_meta":{"terminal_output":true,"terminal-auth":true}}}}`+"\n")
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		s.Buffer(nil, 1<<20)
		s.Scan()
		line <- s.Text()
	}()
	var resp struct {
		Result struct {
			AuthMethods []map[string]any `json:"authMethods"`
		} `json:"result"`
		Error any `json:"error"`
	}
	select {
	case l := <-line:
		if err := json.Unmarshal([]byte(l), &resp); err != nil || resp.Error != nil {
			t.Fatalf("initialize answered %q: %v", l, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no answer to initialize")
	}
	return resp.Result.AuthMethods
}
