package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

// setupRun runs `agent-lsp setup` with the user's answers on stdin, with
// no local server to find, and a config file holding before.
type setupRun struct {
	code           int
	stdout, stderr string
	config         string // the config file after
}

func runSetup(t *testing.T, ctx context.Context, stdin io.Reader, before string) setupRun {
	t.Helper()
	saved := localServers
	localServers = []localServer{{"Ollama", closedPort(t)}}
	t.Cleanup(func() { localServers = saved })
	home := t.TempDir()
	path := filepath.Join(home, "agent-lsp", "config.toml")
	if before != "" {
		os.MkdirAll(filepath.Dir(path), 0o700)
		if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"XDG_CONFIG_HOME": home}
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"setup"}, stdin, &stdout, &stderr, func(k string) string { return env[k] })
	after, _ := os.ReadFile(path)
	return setupRun{code, stdout.String(), stderr.String(), string(after)}
}

const previousConfig = "# mine\nmodel = \"old\"\n"

// A server that answers: the model picked from its list is asked once,
// and the provider, model, address and key land in the user's file; the
// key is never shown.
func TestSetupSavesAWorkingChoice(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "ready"})
	srv.SetModels([]string{"coder-large", "tiny-embed"}, "")
	answers := "4\n" + srv.URL + "/v1\n" + "sk-secret-123\n" + "coder-large\n"
	r := runSetup(t, context.Background(), strings.NewReader(answers), previousConfig)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"# mine", `provider = "openai"`, `model = "coder-large"`, `base_url = "` + srv.URL + `/v1"`, "[keys]", `openai = "sk-secret-123"`} {
		if !strings.Contains(r.config, want) {
			t.Errorf("config lacks %q:\n%s", want, r.config)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "sk-secret-123") {
		t.Errorf("the key was printed:\n%s%s", r.stdout, r.stderr)
	}
	if keys := srv.Keys(); len(keys) != 1 || keys[0] != "sk-secret-123" {
		t.Errorf("test calls with keys %q, want one with the key given", keys)
	}
}

// Bad input leaves the previous config as it was and says why: a key the
// provider refuses, a server that cannot be reached, the input ending
// half-way, Ctrl-C while a question waits.
func TestSetupBadInputLosesNothing(t *testing.T) {
	refusing := llmtest.NewOpenAIServer(t)
	refusing.SetModels([]string{"m"}, "sk-bad")
	blocked, typing := io.Pipe()
	t.Cleanup(func() { typing.Close() })
	ctrlC, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, tc := range []struct {
		name  string
		ctx   context.Context
		stdin io.Reader
		says  string
	}{
		{"refused key", context.Background(), strings.NewReader("4\n" + refusing.URL + "/v1\nsk-bad\n"), "refused the key"},
		{"no network", context.Background(), strings.NewReader("4\n" + closedPort(t) + "\n\n"), "could not reach"},
		{"end of input", context.Background(), strings.NewReader("1\n"), "cancelled"},
		{"ctrl-c", ctrlC, blocked, "cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.ctx == ctrlC {
				time.AfterFunc(100*time.Millisecond, cancel)
			}
			r := runSetup(t, tc.ctx, tc.stdin, previousConfig)
			if r.code != exitFailed || !strings.Contains(r.stderr, tc.says) || !strings.Contains(r.stderr, "unchanged") {
				t.Errorf("exit %d, stderr %q, want %q and unchanged", r.code, r.stderr, tc.says)
			}
			if r.config != previousConfig {
				t.Errorf("the config changed:\n%s", r.config)
			}
			if strings.Contains(r.stdout+r.stderr, "sk-bad") {
				t.Error("the key was printed")
			}
		})
	}
}

// The set-up writes the user's config and nothing in the directory it
// runs in; a server without a key gets no [keys].
func TestSetupWritesTheUsersConfigOnly(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "ready"})
	srv.SetModels([]string{"coder"}, "")
	ws := t.TempDir()
	wd, _ := os.Getwd()
	os.Chdir(ws)
	t.Cleanup(func() { os.Chdir(wd) })
	r := runSetup(t, context.Background(), strings.NewReader("4\n"+srv.URL+"/v1\n\n1\n"), "")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(ws); len(entries) != 0 {
		t.Errorf("the set-up wrote into the current directory: %v", entries)
	}
	if !strings.Contains(r.config, `model = "coder"`) || strings.Contains(r.config, "[keys]") {
		t.Errorf("config:\n%s", r.config)
	}
}

// A provider name the catalog does not know is asked again, naming it.
func TestSetupAsksAgainForAnUnknownProviderName(t *testing.T) {
	r := runSetup(t, context.Background(), strings.NewReader("3\nnot-a-provider\n"), previousConfig)
	if r.code != exitFailed || !strings.Contains(r.stdout, `"not-a-provider" is not one of them`) || !strings.Contains(r.stdout, "groq") || r.config != previousConfig {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
