//go:build unix

package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/mcp/mcptest"
)

func TestNothingStartsUntilARunAsksForTools(t *testing.T) {
	f := newFixture(t, nil, nil)
	src := f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{})
	if st := f.pool.Status([]ServerConfig{f.cfg}); st[0].State != StateIdle || len(f.starts()) != 0 {
		t.Fatalf("started before a run asked: %+v %v", st, f.starts())
	}
	ts, notices := f.tools(src)
	if len(f.starts()) != 1 || ts["mcp__test__greet"] == nil {
		t.Fatalf("starts %v, tools %v", f.starts(), ts)
	}
	if len(notices) != 1 || !strings.HasPrefix(notices[0], "MCP server test (stdio) started: 11 tool(s) in ") {
		t.Fatalf("notices %q", notices)
	}
	// The same values next time, and no notice: nothing changed.
	again, notices := src.Tools(context.Background())
	if len(notices) != 0 || len(again) != len(ts) || ts[again[0].Name()] != again[0] {
		t.Fatalf("the second listing differs: %v %q", again, notices)
	}
	// A second run of the same configuration shares the server.
	f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{}))
	if len(f.starts()) != 1 {
		t.Fatalf("started again for another run: %v", f.starts())
	}
}

func TestToolsAreNamedDescribedAndCheckedLikeOurs(t *testing.T) {
	f := newFixture(t, nil, func(c *ServerConfig) {
		c.AllowedTools = []string{"greet"}
		c.DisabledTools = []string{"mcp__test__big"}
	})
	ts, _ := f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{}))
	if ts["mcp__test__big"] != nil {
		t.Fatal("a disabled tool is offered")
	}
	odd := ts["mcp__test__odd_name___2J"]
	if odd == nil {
		t.Fatalf("the odd name is not sanitised: %v", ts)
	}
	if d := odd.Description(); !strings.HasPrefix(d, "[a tool of the MCP server test; its description, as the server gives it:] very long") || len(d) > maxDescriptionLen+200 {
		t.Fatalf("description %q…", d[:80])
	}
	greet := ts["mcp__test__greet"]
	if !strings.Contains(string(greet.Schema()), `"required":["name"]`) || strings.Contains(string(greet.Schema()), "$schema") {
		t.Fatalf("schema %s", greet.Schema())
	}
	if res := call(t, context.Background(), greet, `{"times": 2}`); !res.IsError || !strings.Contains(res.Text, "invalid arguments for mcp__test__greet") {
		t.Fatalf("missing argument: %+v", res)
	}
	res := call(t, context.Background(), greet, `{"name": "Ada", "times": 2}`)
	if res.IsError || res.Text != `{"greeting":"Hello, Ada! Hello, Ada!"}` {
		t.Fatalf("%+v", res)
	}
	if ts["mcp__test__lookup"].ReadOnly() == false || greet.ReadOnly() {
		t.Fatal("readOnlyHint not read")
	}
}

func TestEveryCallOffAllowedToolsAsksDenyFirst(t *testing.T) {
	f := newFixture(t, nil, nil)
	ask := &recorder{decision: tools.Deny}
	ts, _ := f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{Approver: ask}))
	res := call(t, context.Background(), ts["mcp__test__lookup"], `{"name": "x\n\u001b[2Jy"}`)
	if !res.IsError || !strings.Contains(res.Text, "the user did not allow mcp__test__lookup") {
		t.Fatalf("denied call ran: %+v", res)
	}
	req := ask.asked[0]
	if req.Command != `mcp__test__lookup {"name":"x\n\u001b[2Jy"}` || !strings.Contains(req.Reasons[0], "MCP server test (user config)") {
		t.Fatalf("request %+v", req)
	}
	if p := tools.Printable(req.Command); strings.ContainsAny(p, "\n\x1b") {
		t.Fatalf("shown unescaped: %q", p)
	}
	ask.decision = tools.AllowOnce
	if res := call(t, context.Background(), ts["mcp__test__lookup"], `{"name": "x"}`); res.IsError || res.Text != "found it" {
		t.Fatalf("%+v", res)
	}
	ask.decision = tools.AllowAlways
	call(t, context.Background(), ts["mcp__test__greet"], `{"name": "a"}`)
	ask.decision = tools.Deny
	if res := call(t, context.Background(), ts["mcp__test__greet"], `{"name": "b"}`); res.IsError || ask.count() != 3 {
		t.Fatalf("always did not hold: %+v, %d questions", res, ask.count())
	}
	// Nobody to ask: denied.
	nobody, _ := f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{}))
	if res := call(t, context.Background(), nobody["mcp__test__fail"], `{}`); !res.IsError || !strings.Contains(res.Text, "did not allow") {
		t.Fatalf("%+v", res)
	}
}

func TestResultsErrorsImagesAndResources(t *testing.T) {
	f := newFixture(t, nil, func(c *ServerConfig) { c.AllowedTools = []string{"fail", "media", "big"} })
	ts, _ := f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{MaxOutput: 1000}))
	ctx := context.Background()
	if res := call(t, ctx, ts["mcp__test__fail"], `{}`); !res.IsError || res.Text != "the widget is jammed; try greet instead" {
		t.Fatalf("isError: %+v", res)
	}
	res := call(t, ctx, ts["mcp__test__media"], `{}`)
	for _, want := range []string{"a picture:", "[an image (image/png, 4096 bytes) — not shown]", "[a resource link: report <file:///tmp/report.pdf> (application/pdf)]",
		"[the resource <mem://notes> (text/plain):]\nthe notes", "[the resource <mem://blob> (application/zip, 4 bytes of binary data) — not shown]"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("media lacks %q:\n%s", want, res.Text)
		}
	}
	if o := res.Data.(Outcome); o.Images != 1 || o.Resources != 3 {
		t.Errorf("outcome %+v", o)
	}
	res = call(t, ctx, ts["mcp__test__big"], `{"n": 300000}`)
	if len(res.Text) > 1200 || !strings.HasPrefix(res.Text, "START") || !strings.HasSuffix(res.Text, "END") || !strings.Contains(res.Text, "bytes cut from the middle") {
		t.Fatalf("not cut: %d bytes %q…", len(res.Text), res.Text[:40])
	}
}

func TestASlowToolTimesOutAndACancelledRunCancelsTheCall(t *testing.T) {
	f := newFixture(t, nil, func(c *ServerConfig) { c.AllowedTools = []string{"slow"} })
	ts, _ := f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{}))
	slow := ts["mcp__test__slow"].(*tool)
	slow.timeout = 200 * time.Millisecond
	res := call(t, context.Background(), slow, `{"ms": 60000}`)
	if !res.IsError || !strings.Contains(res.Text, "gave no answer within 200ms") {
		t.Fatalf("%+v", res)
	}
	cancelled := filepath.Join(f.dir, "cancelled")
	waitFor(t, "notifications/cancelled to reach the server", func() bool { _, err := os.Stat(cancelled); return err == nil })
	os.Remove(cancelled)

	slow.timeout = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := slow.Execute(ctx, []byte(`{"ms": 60000}`)); done <- err }()
	time.AfterFunc(100*time.Millisecond, cancel)
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("a cancelled run's call ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelling the run did not end the call")
	}
	waitFor(t, "the cancellation to reach the server", func() bool { _, err := os.Stat(cancelled); return err == nil })
	// The server is still there for the next call.
	if res := call(t, context.Background(), ts["mcp__test__greet"], `{"name": "x"}`); !strings.Contains(res.Text, "did not allow") {
		t.Fatalf("%+v", res)
	}
}

func TestAServerThatDiesIsRestartedOnceThenLeftOut(t *testing.T) {
	f := newFixture(t, nil, func(c *ServerConfig) { c.AllowedTools = []string{"crash", "greet"} })
	src := f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{})
	ts, _ := f.tools(src)
	ctx := context.Background()
	res := call(t, ctx, ts["mcp__test__crash"], `{}`)
	if !res.IsError || !strings.Contains(res.Text, "exited during the call to mcp__test__crash") {
		t.Fatalf("crash: %+v", res)
	}
	// The next call restarts it.
	if res := call(t, ctx, ts["mcp__test__greet"], `{"name": "again"}`); res.IsError || !strings.Contains(res.Text, "Hello, again!") {
		t.Fatalf("after the restart: %+v", res)
	}
	if len(f.starts()) != 2 {
		t.Fatalf("starts %v", f.starts())
	}
	ts2, notices := f.tools(src)
	if len(ts2) == 0 || len(notices) != 1 || !strings.Contains(notices[0], "restarted after it exited; its stderr ends: testserver: crashing on purpose") {
		t.Fatalf("notices %q", notices)
	}
	if st := f.pool.Status([]ServerConfig{f.cfg})[0]; st.State != StateReady || st.Restarts != 1 {
		t.Fatalf("%+v", st)
	}
	// Dying again fails it for good: reported, its tools absent.
	call(t, ctx, ts2["mcp__test__crash"], `{}`)
	if res := call(t, ctx, ts2["mcp__test__greet"], `{"name": "x"}`); !res.IsError || !strings.Contains(res.Text, "not available: it exited again after its restart") {
		t.Fatalf("%+v", res)
	}
	ts3, notices := f.tools(src)
	if len(ts3) != 0 || len(notices) != 1 || !strings.Contains(notices[0], "MCP server test failed: it exited again") || len(f.starts()) != 2 {
		t.Fatalf("tools %v notices %q starts %v", ts3, notices, f.starts())
	}
	if st := f.pool.Status([]ServerConfig{f.cfg})[0]; st.State != StateFailed || !strings.Contains(st.Error, "exited again") {
		t.Fatalf("%+v", st)
	}
}

func TestListChangedRefreshesTheTools(t *testing.T) {
	f := newFixture(t, nil, func(c *ServerConfig) { c.AllowedTools = []string{"grow", "late"} })
	src := f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{})
	ts, _ := f.tools(src)
	if ts["mcp__test__late"] != nil {
		t.Fatal("late is there from the start")
	}
	call(t, context.Background(), ts["mcp__test__grow"], `{}`)
	f.waitChange("no tools/list_changed", func() bool { return slices.Contains(f.pool.Status([]ServerConfig{f.cfg})[0].Tools, "mcp__test__late") })
	ts, notices := f.tools(src)
	if res := call(t, context.Background(), ts["mcp__test__late"], `{}`); res.Text != "late tool here" {
		t.Fatalf("%v %+v", ts, res)
	}
	if len(notices) != 1 || notices[0] != "MCP server test changed its tools: 12 now" {
		t.Fatalf("notices %q", notices)
	}
}

func TestAServerThatCannotStartIsReportedAndTheRestGoOn(t *testing.T) {
	f := newFixture(t, nil, nil)
	broken := f.cfg
	broken.Name, broken.Args = "broken", []string{"-exit-at-start"}
	hung, hungDir := f.cfg, t.TempDir()
	hung.Name, hung.Args, hung.Timeout, hung.Env = "hung", []string{"-silent"}, 300*time.Millisecond, map[string]string{"MCPTEST_DIR": hungDir}
	unset := f.cfg
	unset.Name, unset.Env = "unset", map[string]string{"TOKEN": "${NO_SUCH_TOKEN}"}
	ts, notices := f.tools(f.pool.Source([]ServerConfig{f.cfg, broken, hung, unset}, SourceOptions{}))
	if ts["mcp__test__greet"] == nil || len(ts) != 11 {
		t.Fatalf("the good server's tools: %v", ts)
	}
	all := strings.Join(notices, "\n")
	for _, want := range []string{
		"MCP server broken failed: ", `its stderr ends: \x1b[31mtestserver: cannot start: missing database\x1b[0m; its tools are left out`,
		"MCP server hung failed: no answer within 300ms (timeout_s)",
		"MCP server unset failed: environment variable(s) NO_SUCH_TOKEN not set",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("notices lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "\x1b") || !strings.Contains(all, `\x1b[31mtestserver`) {
		t.Errorf("the server's stderr is not escaped:\n%q", all)
	}
	// The server that never answered is not left running.
	data, _ := os.ReadFile(filepath.Join(hungDir, "starts"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if pid == 0 {
		t.Fatal("the hung server did not start")
	}
	waitFor(t, "the hung server to be killed", func() bool { return syscall.Kill(pid, 0) != nil })
}

func TestHeadersGoToTheServersHostOnly(t *testing.T) {
	var leaked atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization"))
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer other.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	f := newFixture(t, map[string]string{"TOK": "s3cret"}, nil)
	f.cfg = ServerConfig{Name: "web", Origin: "user", ReadsEnv: true, Enabled: true, URL: redirecting.URL + "/mcp",
		Headers: map[string]string{"Authorization": "Bearer ${TOK}"}, Timeout: 5 * time.Second}
	_, notices := f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{}))
	if !strings.Contains(strings.Join(notices, ""), "redirected to another host") {
		t.Fatalf("%q", notices)
	}
	if v, _ := leaked.Load().(string); v != "" {
		t.Fatalf("the token went to another host: %q", v)
	}
}

func TestTheEnvironmentIsOnlyWhatTheServerIsGiven(t *testing.T) {
	env := map[string]string{"PATH": os.Getenv("PATH"), "MY_TOKEN": "s3cret", "OPENAI_API_KEY": "sk-x"}
	mine := newFixture(t, env, func(c *ServerConfig) {
		c.Env["TOKEN"], c.Env["WITH_DEFAULT"] = "${MY_TOKEN}", "${UNSET_ONE:-fallback}"
		c.AllowedTools = []string{"env"}
	})
	ts, _ := mine.tools(mine.pool.Source([]ServerConfig{mine.cfg}, SourceOptions{}))
	for args, want := range map[string]string{
		`{"name": "TOKEN"}`: "TOKEN=s3cret", `{"name": "WITH_DEFAULT"}`: "WITH_DEFAULT=fallback",
		`{"name": "OPENAI_API_KEY"}`: "OPENAI_API_KEY is not set", `{"name": "MY_TOKEN"}`: "MY_TOKEN is not set",
	} {
		if res := call(t, context.Background(), ts["mcp__test__env"], args); res.Text != want {
			t.Errorf("%s: %q, want %q", args, res.Text, want)
		}
	}
	project := newFixture(t, env, func(c *ServerConfig) {
		c.Origin, c.ReadsEnv = "project", false
		c.Env["TOKEN"] = "${MY_TOKEN}"
		c.AllowedTools = []string{"env"}
	})
	ts, _ = project.tools(project.pool.Source([]ServerConfig{project.cfg}, SourceOptions{}))
	if res := call(t, context.Background(), ts["mcp__test__env"], `{"name": "TOKEN"}`); res.Text != "TOKEN=${MY_TOKEN}" {
		t.Fatalf("a project's server read the environment: %q", res.Text)
	}
	// With nothing to inherit, the server still gets nothing of ours (an
	// empty environment, not the process's).
	t.Setenv("AGENT_LSP_TEST_SECRET", "leak")
	bare := newFixture(t, nil, func(c *ServerConfig) { c.Env, c.AllowedTools = nil, []string{"env"} })
	ts, _ = bare.tools(bare.pool.Source([]ServerConfig{bare.cfg}, SourceOptions{}))
	if res := call(t, context.Background(), ts["mcp__test__env"], `{"name": "AGENT_LSP_TEST_SECRET"}`); res.Text != "AGENT_LSP_TEST_SECRET is not set" {
		t.Fatalf("%q", res.Text)
	}
}

func TestClosingThePoolEndsTheServersProcessGroup(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.cfg.Command, f.cfg.Args = "/bin/sh", []string{"-c", `sleep 300 & echo $! > "$MCPTEST_DIR/child"; exec "$0"`, mcptest.TestServer(t)}
	f.cfg.Env["PATH"] = os.Getenv("PATH")
	f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{}))
	data, err := os.ReadFile(filepath.Join(f.dir, "child"))
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	server, _ := strconv.Atoi(f.starts()[0])
	if syscall.Kill(child, 0) != nil || syscall.Kill(server, 0) != nil {
		t.Fatal("not running")
	}
	f.pool.Close()
	for _, pid := range []int{server, child} {
		// Reaped by us (the server) or by init (the orphaned sleep).
		waitFor(t, "the process group to end", func() bool { return syscall.Kill(pid, 0) != nil })
	}
	if ts, notices := f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{})); len(ts) != 0 || !strings.Contains(strings.Join(notices, ""), "shutting down") {
		t.Fatalf("a closed pool still offers tools: %v %q", ts, notices)
	}
}

func TestStreamableHTTP(t *testing.T) {
	f := newFixture(t, map[string]string{"TEST_TOKEN": "t0k"}, nil)
	url := startHTTP(t, f.dir)
	f.cfg = ServerConfig{Name: "web", Origin: "user", ReadsEnv: true, Enabled: true, URL: url + "?key=secret",
		Headers: map[string]string{"Authorization": "Bearer ${TEST_TOKEN}"}, AllowedTools: []string{"header", "grow", "late", "fail"}, Timeout: 20 * time.Second}
	src := f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{})
	ts, notices := f.tools(src)
	if len(notices) != 1 || !strings.HasPrefix(notices[0], "MCP server web (http) started") {
		t.Fatalf("%q", notices)
	}
	ctx := context.Background()
	if res := call(t, ctx, ts["mcp__web__header"], `{"name": "Authorization"}`); res.Text != "Authorization: Bearer t0k" {
		t.Fatalf("%+v", res)
	}
	if res := call(t, ctx, ts["mcp__web__fail"], `{}`); !res.IsError {
		t.Fatalf("%+v", res)
	}
	call(t, ctx, ts["mcp__web__grow"], `{}`)
	f.waitChange("no tools/list_changed over HTTP", func() bool { return slices.Contains(f.pool.Status([]ServerConfig{f.cfg})[0].Tools, "mcp__web__late") })
	if ts, _ = f.tools(src); ts["mcp__web__late"] == nil {
		t.Fatal("late is missing")
	}
	st := f.pool.Status([]ServerConfig{f.cfg})[0]
	if st.Transport != "http" || strings.Contains(st.Target, "secret") || st.State != StateReady || len(st.Tools) != 12 || len(st.Allowed) != 4 {
		t.Fatalf("%+v", st)
	}
}

func TestNamesStayInWhatProvidersTake(t *testing.T) {
	for _, c := range []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my server", "get.thing/v2", "mcp__my_server__get_thing_v2"},
		{"ünï", "tool", "mcp___n___tool"},
	} {
		if got := ToolName(c.server, c.tool); got != c.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
	long1, long2 := ToolName("server", strings.Repeat("a", 80)+"1"), ToolName("server", strings.Repeat("a", 80)+"2")
	if len(long1) != 64 || long1 == long2 {
		t.Fatalf("%q %q", long1, long2)
	}
}

func TestAnHTTPServersTokenStaysOutOfMessages(t *testing.T) {
	f := newFixture(t, map[string]string{"TOK": "s3cret"}, nil)
	f.cfg = ServerConfig{Name: "web", Origin: "user", ReadsEnv: true, Enabled: true, URL: "http://127.0.0.1:1/mcp?token=${TOK}", Timeout: 5 * time.Second}
	_, notices := f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{}))
	st := f.pool.Status([]ServerConfig{f.cfg})[0]
	all := strings.Join(notices, "\n") + st.Error + st.Target
	if st.State != StateFailed || !strings.Contains(all, "http://127.0.0.1:1/mcp") || strings.Contains(all, "s3cret") || strings.Contains(all, "token") {
		t.Fatalf("%+v\n%s", st, all)
	}
}

// TestAServerFromTheEditorsSettingsAsksBeforeItStarts: some editors take
// their settings from the repository unasked (eglot's workspace
// configuration from .dir-locals.el), so such a server is a question, Deny
// first; a server from the user's own config is not.
func TestAServerFromTheEditorsSettingsAsksBeforeItStarts(t *testing.T) {
	f := newFixture(t, nil, func(c *ServerConfig) { c.Origin = "editor" })
	deny := &recorder{decision: tools.Deny}
	ts, notices := f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{Approver: deny}))
	if len(ts) != 0 || len(f.starts()) != 0 || deny.count() != 1 || !strings.Contains(deny.asked[0].Command, "start MCP server test: ") {
		t.Fatalf("denied: tools %v, starts %v, asked %+v", ts, f.starts(), deny.asked)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "not started: you did not allow it") {
		t.Fatalf("notices %q", notices)
	}
	// Without an approver (nobody can answer) it is a denial too.
	if ts, _ := f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{})); len(ts) != 0 || len(f.starts()) != 0 {
		t.Fatalf("started without anyone allowing it: %v", f.starts())
	}
	always := &recorder{decision: tools.AllowAlways}
	if ts, _ := f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{Approver: always})); ts["mcp__test__greet"] == nil || len(f.starts()) != 1 {
		t.Fatalf("allowed: tools %v, starts %v", ts, f.starts())
	}
	// Allowed for good: the next run does not ask again.
	again := &recorder{decision: tools.Deny}
	if ts, _ := f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{Approver: again})); ts["mcp__test__greet"] == nil || again.count() != 0 {
		t.Fatalf("asked again after Always: %d", again.count())
	}
	// The user's own config starts without a question.
	g := newFixture(t, nil, nil)
	never := &recorder{decision: tools.Deny}
	if ts, _ := g.tools(g.pool.Source([]ServerConfig{g.cfg}, SourceOptions{Approver: never})); ts["mcp__test__greet"] == nil || never.count() != 0 {
		t.Fatalf("the user's own server asked: %d", never.count())
	}
}

// TestOnChangeMayReadThePool: told of a tools/list_changed, an OnChange
// that reads the pool's prompts (as ACP's menu does) is called with no
// server's lock held; it deadlocked.
func TestOnChangeMayReadThePool(t *testing.T) {
	f := newFixture(t, nil, func(c *ServerConfig) { c.AllowedTools = []string{"grow", "late"} })
	var pool *Pool
	read := make(chan []Prompt, 16)
	pool = NewPool(Options{OnChange: func(string) { read <- pool.Prompts([]ServerConfig{f.cfg}) }})
	t.Cleanup(func() { pool.Close() })
	src := pool.Source([]ServerConfig{f.cfg}, SourceOptions{})
	f.pool = pool
	ts, _ := f.tools(src)
	call(t, context.Background(), ts["mcp__test__grow"], `{}`)
	timeout := time.After(10 * time.Second)
	for !slices.Contains(pool.Status([]ServerConfig{f.cfg})[0].Tools, "mcp__test__late") {
		select {
		case <-read:
		case <-timeout:
			t.Fatal("the refreshed tools never came: OnChange blocked")
		}
	}
}
