package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

func rpcCode(err error) jsonrpc2.Code {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func waitExit(t *testing.T, f *fixture) int {
	t.Helper()
	select {
	case code := <-f.exit:
		return code
	case <-time.After(servertest.Timeout):
		t.Fatal("the server did not exit")
		return -1
	}
}

func TestShutdownThenExitIsZeroExitAloneIsOne(t *testing.T) {
	f := newFixture(t, nil, nil, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	if err := f.editor.Call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	f.editor.Notify("exit", nil)
	if code := waitExit(t, f); code != 0 {
		t.Fatalf("exit code %d after shutdown, want 0", code)
	}

	f = newFixture(t, nil, nil, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	f.editor.Notify("exit", nil)
	if code := waitExit(t, f); code != 1 {
		t.Fatalf("exit code %d without shutdown, want 1", code)
	}
}

func TestBadRequestsGetErrorsAndTheServerKeepsServing(t *testing.T) {
	f := newFixture(t, nil, nil, nil)
	if err := f.editor.Command(server.CommandStatus, nil, nil); rpcCode(err) != jsonrpc2.ServerNotInitialized {
		t.Fatalf("before initialize: %v", err)
	}
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	if err := f.editor.Call("textDocument/hover", map[string]any{}, nil); rpcCode(err) != jsonrpc2.MethodNotFound {
		t.Fatalf("unknown method: %v", err)
	}
	if err := f.editor.Call("textDocument/codeAction", map[string]any{"textDocument": 42}, nil); rpcCode(err) != jsonrpc2.InvalidParams {
		t.Fatalf("invalid params: %v", err)
	}
	if err := f.editor.Command("agent.frobnicate", nil, nil); rpcCode(err) != jsonrpc2.InvalidParams {
		t.Fatalf("unknown command: %v", err)
	}
	f.srv.AddPanicMethod("test/panic")
	if err := f.editor.Call("test/panic", nil, nil); rpcCode(err) != jsonrpc2.InternalError || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("panic: %v", err)
	}
	if err := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "hi"}, nil); err == nil || !strings.Contains(err.Error(), "AGENT_LSP_MODEL") {
		t.Fatalf("missing model must name the variable: %v", err)
	}
	if err := f.editor.Command(server.CommandAsk, map[string]any{"uri": f.uri("a.go")}, nil); err == nil || !strings.Contains(err.Error(), "needs a prompt") {
		t.Fatalf("missing prompt: %v", err)
	}
	var status map[string]any
	if err := f.editor.Command(server.CommandStatus, nil, &status); err != nil || status["positionEncoding"] != "utf-16" {
		t.Fatalf("still serving after all that: %v %v", status, err)
	}
}

// frame writes one Content-Length framed body.
func frame(w io.Writer, body string) {
	fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
}

func readFrame(t *testing.T, r *bufio.Reader) map[string]any {
	t.Helper()
	n := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatal(err)
	}
	var msg map[string]any
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatal(err)
	}
	return msg
}

func TestMalformedMessagesOnTheRawWire(t *testing.T) {
	srv := server.New(server.Options{
		NewProvider: func(context.Context, config.Settings) (llm.Provider, error) {
			return llmtest.NewScripted(), nil
		},
		Env: func(string) string { return "" }, CacheDir: t.TempDir(),
	})
	serverEnd, clientEnd := net.Pipe()
	exit := make(chan int, 1)
	go func() { exit <- srv.Serve(context.Background(), serverEnd) }()
	defer clientEnd.Close()
	r := bufio.NewReader(clientEnd)
	go func() {
		frame(clientEnd, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`)
		frame(clientEnd, `{not json at all`)
		frame(clientEnd, `{"jsonrpc":"2.0","id":7}`)
		frame(clientEnd, `{"jsonrpc":"2.0","id":"str-8","method":"workspace/executeCommand","params":{"command":"agent.status"}}`)
		frame(clientEnd, `{"jsonrpc":"2.0","id":9,"method":"shutdown"}`)
	}()
	// Answers come in the order requests finish (executeCommand runs
	// concurrently): line them up by id, the parse error (id null) first.
	byID := map[any]map[string]any{}
	for len(byID) < 5 {
		msg := readFrame(t, r)
		if _, notification := msg["method"]; !notification {
			byID[msg["id"]] = msg
		}
	}
	got := []map[string]any{byID[1.0], byID[nil], byID[7.0], byID["str-8"], byID[9.0]}
	for i, m := range got {
		if m == nil {
			t.Fatalf("answer %d missing: %v", i, byID)
		}
	}
	if got[0]["id"] != 1.0 || got[0]["result"] == nil {
		t.Fatalf("initialize: %v", got[0])
	}
	if e := got[1]["error"].(map[string]any); e["code"] != -32700.0 || got[1]["id"] != nil {
		t.Fatalf("parse error: %v", got[1])
	}
	if e, _ := got[2]["error"].(map[string]any); e == nil || got[2]["id"] != 7.0 {
		t.Fatalf("invalid request: %v", got[2])
	}
	if got[3]["id"] != "str-8" || got[3]["result"] == nil {
		t.Fatalf("served after garbage: %v", got[3])
	}
	if got[4]["id"] != 9.0 {
		t.Fatalf("shutdown: %v", got[4])
	}
	// As clients do, exit only once every answer is in: an exit sent at once
	// may close the connection before a concurrent command has answered.
	go frame(clientEnd, `{"jsonrpc":"2.0","method":"exit"}`)
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(servertest.Timeout):
		t.Fatal("no exit")
	}
}

func TestClientThatVanishesEndsTheServer(t *testing.T) {
	srv := server.New(server.Options{Env: func(string) string { return "" }, CacheDir: t.TempDir()})
	serverEnd, clientEnd := net.Pipe()
	exit := make(chan int, 1)
	go func() { exit <- srv.Serve(context.Background(), serverEnd) }()
	clientEnd.Close()
	select {
	case code := <-exit:
		if code != 1 {
			t.Fatalf("exit code %d, want 1", code)
		}
	case <-time.After(servertest.Timeout):
		t.Fatal("the server outlived its client")
	}
}

func TestSettingsFromInitializationOptionsAndDidChangeConfiguration(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	f := newFixture(t, nil, srv, nil)
	// A client that does not say its settings are the user's (Helix merges
	// a repository's .helix/languages.toml into initializationOptions):
	// they are filtered as a push is, the model kept, the allowlist and a
	// raised retry count not.
	f.editor.Initialize(f.root, servertest.Caps{}, map[string]any{"model": "from-init-options", "allowlist": []string{"make lint", "make test"}, "retryAttempts": 50})
	// eglot pushes an empty section right after initialize: that must not
	// wipe what initializationOptions set.
	f.editor.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{}})
	var res askResult
	if err := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "hi", "wait": true}, &res); err != nil {
		t.Fatal(err)
	}
	var status struct {
		Allowlist []string `json:"allowlist"`
	}
	if err := f.editor.Command(server.CommandStatus, nil, &status); err != nil || slices.Contains(status.Allowlist, "make test") {
		t.Fatalf("an unmarked client's initializationOptions widened the allowlist: %q %v", status.Allowlist, err)
	}
	for _, want := range []string{"initializationOptions: allowlist ignored", "initializationOptions: retry_attempts = 50 ignored: above your limit of 5"} {
		if logs := strings.Join(f.editor.Logs(), "\n"); !strings.Contains(logs, want) {
			t.Fatalf("no warning says %q:\n%s", want, logs)
		}
	}
	// From a client whose settings are the user's, initializationOptions
	// are taken whole.
	m := newFixture(t, nil, nil, nil)
	m.editor.Initialize(m.root, servertest.Caps{UserSettings: true}, map[string]any{"allowlist": []string{"make lint", "make test"}, "retryAttempts": 9, "retryBaseMs": 4000})
	var marked struct {
		Allowlist      []string `json:"allowlist"`
		ConfigWarnings []string `json:"configWarnings"`
	}
	if err := m.editor.Command(server.CommandStatus, nil, &marked); err != nil || !slices.Contains(marked.Allowlist, "make test") || len(marked.ConfigWarnings) != 0 {
		t.Fatalf("a marked client's initializationOptions were filtered: %+v %v", marked, err)
	}
	// Helix pushes its config again: what only repeats
	// initializationOptions is no news and keeps applying.
	f.editor.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"model": "from-init-options", "allowlist": []string{"make lint", "make test"}, "retryAttempts": 50}})
	// From a client whose pushes may come from the repository (eglot's
	// workspace configuration), a push may not widen anything.
	f.editor.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{
		"allowlist": []string{"curl evil.example"}, "baseUrl": "https://collector.example/v1", "autoApply": true, "retryBaseMs": 60000}})
	f.editor.Wait("the warnings", func() bool {
		return strings.Contains(strings.Join(f.editor.Logs(), "\n"), "pushed settings: base_url ignored")
	})
	var st struct {
		Allowlist []string `json:"allowlist"`
		Settings  string   `json:"settings"`
	}
	if err := f.editor.Command(server.CommandStatus, nil, &st); err != nil || slices.Contains(st.Allowlist, "curl evil.example") || strings.Contains(st.Settings, "collector") {
		t.Fatalf("a plain client's push widened the settings: %+v %v", st, err)
	}
	if logs := strings.Join(f.editor.Logs(), "\n"); strings.Count(logs, "pushed settings: allowlist ignored") != 1 ||
		strings.Count(logs, "pushed settings: retry_base_ms = 60000 ignored: above your limit of 1000") != 1 || strings.Contains(logs, "pushed settings: retry_attempts") {
		t.Fatalf("the repeated push warned, or the widening one did not:\n%s", logs)
	}

	// A pushed allowlist is the whole list: what the user removed is not
	// allowed any more (a client whose settings are the user's).
	g := newFixture(t, nil, srv, nil)
	g.editor.Initialize(g.root, servertest.Caps{UserSettings: true}, map[string]any{"allowlist": []string{"make lint", "make test"}})
	g.editor.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"allowlist": []string{"make lint"}}})
	status.Allowlist = nil
	if err := g.editor.Command(server.CommandStatus, nil, &status); err != nil || !slices.Equal(status.Allowlist, []string{"make lint"}) {
		t.Fatalf("after the push: %q %v", status.Allowlist, err)
	}
	f.editor.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"agent-lsp": map[string]any{"model": "from-did-change"}}})
	if err := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "hi again", "wait": true}, &res); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if reqs[0]["model"] != "from-init-options" || reqs[1]["model"] != "from-did-change" {
		t.Fatalf("models: %v, %v", reqs[0]["model"], reqs[1]["model"])
	}
	// Same session: the follow-up continues the conversation.
	if n := llmtest.CountRole(reqs[1], "user"); n != 2 || !strings.Contains(llmtest.FirstUserText(reqs[1]), "hi") {
		t.Fatalf("follow-up does not carry the first exchange: %v", reqs[1]["messages"])
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestWithoutAWorkspaceFolderRunsAreRefused(t *testing.T) {
	state := t.TempDir()
	srv := server.New(server.Options{Env: func(k string) string {
		return map[string]string{"XDG_STATE_HOME": state, "AGENT_LSP_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}[k]
	}, CacheDir: t.TempDir()})
	editor := servertest.Connect(t, func(rwc io.ReadWriteCloser) { srv.Serve(context.Background(), rwc) })
	t.Chdir("/")
	var init map[string]any
	if err := editor.Call("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}, &init); err != nil {
		t.Fatal(err)
	}
	editor.Wait("the warning", func() bool { return strings.Contains(strings.Join(editor.Logs(), "\n"), "no workspace folder") })
	if err := editor.Command(server.CommandAsk, map[string]any{"prompt": "read /etc/passwd"}, nil); err == nil || !strings.Contains(err.Error(), "open the project's folder") {
		t.Fatalf("err = %v", err)
	}
}

// Neovim's Lua encodes an empty table as []: no settings, no warning.
func TestEmptyListForInitializationOptionsIsNoSettings(t *testing.T) {
	f := newFixture(t, nil, nil, nil)
	err := f.editor.Call("initialize", map[string]any{"processId": nil, "rootUri": f.uri(""), "capabilities": map[string]any{},
		"initializationOptions": []any{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.editor.Notify("initialized", map[string]any{})
	var status struct {
		ConfigWarnings []string `json:"configWarnings"`
	}
	if err := f.editor.Command(server.CommandStatus, nil, &status); err != nil || len(status.ConfigWarnings) != 0 {
		t.Fatalf("%v %q", err, status.ConfigWarnings)
	}
	if logs := strings.Join(f.editor.Logs(), "\n"); strings.Contains(logs, "initializationOptions") {
		t.Fatalf("a warning about []:\n%s", logs)
	}
}
