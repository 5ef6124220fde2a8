package server_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/llm/openai"
	"github.com/agent-lsp/agent-lsp/llm/resilience"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// fixture is a server on an in-process pipe, a fake editor, a workspace on
// disk and a scripted OpenAI-wire provider behind the real SDK.
type fixture struct {
	t      testing.TB
	root   string
	editor *servertest.Editor
	llm    *llmtest.Server
	exit   chan int
	srv    *server.Server
}

// newFixture starts a server on files; with is applied to its options
// last.
func newFixture(t testing.TB, files map[string]string, llmServer *llmtest.Server, env map[string]string, with ...func(*server.Options)) *fixture {
	t.Helper()
	root := toolstest.WriteTree(t, files)
	if env == nil {
		env = map[string]string{}
	}
	env["XDG_CONFIG_HOME"] = t.TempDir()
	if env["XDG_STATE_HOME"] == "" {
		env["XDG_STATE_HOME"] = t.TempDir()
	}
	if llmServer != nil {
		env["AGENT_LSP_MODEL"] = "gpt-test"
		env["OPENAI_BASE_URL"] = llmServer.URL + "/v1"
	}
	breakers := resilience.NewBreakers(resilience.BreakerOptions{})
	opts := server.Options{
		NewProvider: func(ctx context.Context, s config.Settings) (llm.Provider, error) {
			p, err := openai.New(openai.Config{Model: s.Model, APIKey: s.OpenAIKey, BaseURL: s.BaseURL, Thinking: s.Thinking})
			if err != nil {
				return nil, err
			}
			return resilience.Chain(resilience.Options{Breakers: breakers, Retry: resilience.RetryOptions{Base: time.Millisecond}},
				resilience.Tier{Provider: p}), nil
		},
		NewInfiller: func(ctx context.Context, s config.Settings) (llm.Infiller, error) {
			t := s.CompletionTarget()
			return openai.New(openai.Config{Model: t.Model, BaseURL: t.BaseURL, FIM: s.Completion.FIM})
		},
		NewNES: func(ctx context.Context, s config.Settings) (llm.Provider, error) {
			t := s.NESTarget()
			return openai.New(openai.Config{Model: t.Model, BaseURL: t.BaseURL})
		},
		Breakers: breakers.States,
		Env:      func(k string) string { return env[k] },
		CacheDir: t.TempDir(),
		Logger:   slog.New(readLoopWatch{t}),
	}
	for _, w := range with {
		w(&opts)
	}
	srv := server.New(opts)
	f := &fixture{t: t, root: root, llm: llmServer, exit: make(chan int, 1), srv: srv}
	f.editor = servertest.Connect(t, func(rwc io.ReadWriteCloser) { f.exit <- srv.Serve(context.Background(), rwc) })
	return f
}

// shutdown ends the connection as a client does (shutdown, exit) and waits
// for Serve's return: the servers it started are stopped.
func (f *fixture) shutdown() {
	f.t.Helper()
	if err := f.editor.Call("shutdown", nil, nil); err != nil {
		f.t.Fatal(err)
	}
	f.editor.Notify("exit", nil)
	select {
	case <-f.exit:
	case <-time.After(servertest.Timeout):
		f.t.Fatal("the server did not exit")
	}
}

// readLoopWatch fails the test where the server made a call that waits
// on the client on its read loop (which refuses it, and logs so): every
// test on the wire checks that nothing reached from a notification waits.
type readLoopWatch struct{ t testing.TB }

func (w readLoopWatch) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }
func (w readLoopWatch) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "on the read loop") {
		var attrs []string
		r.Attrs(func(a slog.Attr) bool { attrs = append(attrs, a.String()); return true })
		w.t.Errorf("the server logged: %s %s", r.Message, strings.Join(attrs, " "))
	}
	return nil
}
func (w readLoopWatch) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w readLoopWatch) WithGroup(string) slog.Handler      { return w }

func (f *fixture) uri(rel string) uri.URI { return uri.File(filepath.Join(f.root, rel)) }

func (f *fixture) disk(rel string) string {
	data, _ := os.ReadFile(filepath.Join(f.root, rel))
	return string(data)
}

type askResult struct {
	RunID      string `json:"runId"`
	ProposalID string `json:"proposalId"`
	State      string `json:"state"`
	Answer     string `json:"answer"`
	Diff       string `json:"diff"`
}

func (f *fixture) ask(args map[string]any) askResult {
	f.t.Helper()
	var res askResult
	if err := f.editor.Command(server.CommandAsk, args, &res); err != nil {
		f.t.Fatalf("agent.ask: %v", err)
	}
	return res
}

// waitEnd waits for the run's progress to end and returns its message.
func (f *fixture) waitEnd(runID string) string {
	f.t.Helper()
	var end servertest.ProgressEvent
	f.editor.Wait(runID+" to end", func() bool {
		var ok bool
		end, ok = f.editor.ProgressEnded("agent-lsp/" + runID)
		return ok
	})
	return end.Message
}

func call(name, args string) llmtest.Call { return llmtest.Call{Name: name, Args: args} }

func TestUnsavedBufferIsReadAndEditedWithPreview(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("read_file", `{"path":"main.go"}`)}},
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"main.go","old_string":"unsaved()","new_string":"renamed()"}`)}},
		llmtest.Turn{Text: "Renamed the call."},
	)
	f := newFixture(t, map[string]string{"main.go": "package main\n\nfunc main() { saved() }\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Annotations: true, Progress: true, ShowDocument: true}, nil)
	u := f.uri("main.go")
	f.editor.Open(u, "package main\n\nfunc main() { unsaved() }\n")
	res := f.ask(map[string]any{"prompt": "rename the call", "uri": u})
	if res.RunID == "" || res.ProposalID == "" {
		t.Fatalf("ask result %+v", res)
	}
	f.editor.Wait("the proposal as an applyEdit", func() bool { return f.editor.EditCount() == 1 })
	f.editor.Wait("the buffer to change", func() bool { b, _ := f.editor.Buffer(u); return strings.Contains(b.Text, "renamed()") })
	if end := f.waitEnd(res.RunID); !strings.HasPrefix(end, "Completed: 1 file(s) changed") {
		t.Fatalf("progress end %q", end)
	}
	toolResult := srv.Requests()[1]["messages"].([]any)[3].(map[string]any)["content"].(string)
	if !strings.Contains(toolResult, "unsaved()") || strings.Contains(toolResult, "saved() }") && !strings.Contains(toolResult, "unsaved") {
		t.Fatalf("the agent did not read the unsaved buffer: %q", toolResult)
	}
	// The label names the proposal, so a client that reviews the edit
	// itself can apply or discard that one by name.
	if label := f.editor.Edits()[0].Label; label == nil || !strings.HasPrefix(*label, "agent-lsp: "+res.ProposalID+": ") {
		t.Fatalf("edit label %v does not name %s", label, res.ProposalID)
	}
	edit := f.editor.Edits()[0].Edit
	tde := edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if tde.TextDocument.Version == nil || *tde.TextDocument.Version != 1 {
		t.Fatalf("edit not versioned with the buffer's version: %+v", tde.TextDocument)
	}
	ann, ok := tde.Edits[0].(*protocol.AnnotatedTextEdit)
	if !ok || ann.AnnotationID != "agent-lsp" || edit.ChangeAnnotations["agent-lsp"].NeedsConfirmation == nil {
		t.Fatalf("edit is not annotated for confirmation: %#v / %#v", tde.Edits[0], edit.ChangeAnnotations)
	}
	if ann.Range.Start.Line != 2 || ann.Range.End.Line != 3 {
		t.Fatalf("not a minimal line edit: %+v", ann.Range)
	}
	if f.disk("main.go") != "package main\n\nfunc main() { saved() }\n" {
		t.Fatal("disk was written")
	}
	var progress []string
	for _, p := range f.editor.Progress() {
		progress = append(progress, p.Message)
	}
	if !strings.Contains(strings.Join(progress, "\n"), "Iteration 2/10 · Edit main.go") ||
		!strings.Contains(strings.Join(progress, "\n"), "Iteration 3/10 · Renamed the call.") {
		t.Fatalf("progress steps: %q", progress)
	}
	if logs := strings.Join(f.editor.Logs(), "\n"); !strings.Contains(logs, "[ACT] Executing tool: edit_file") {
		t.Fatalf("trace not logged:\n%s", logs)
	}
	if len(f.editor.Shown()) == 0 {
		t.Fatal("the answer document was not shown")
	}
}

func TestEditsInUTF16AndUTF8WithEmojiAndCRLF(t *testing.T) {
	for _, utf8 := range []bool{false, true} {
		t.Run(map[bool]string{false: "utf-16", true: "utf-8"}[utf8], func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t,
				llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"a.ts","old_string":"let x = 1;","new_string":"let x = 2; // 🎉"}`)}},
				llmtest.Turn{Text: "done"},
			)
			f := newFixture(t, map[string]string{"a.ts": "x"}, srv, nil)
			f.editor.Initialize(f.root, servertest.Caps{UTF8: utf8, Progress: true, UserSettings: true}, map[string]any{"autoApply": true})
			u := f.uri("a.ts")
			text := "const s = '😀😀'; let x = 1;\r\nlet y = '𝄞';\r\n"
			f.editor.Open(u, text)
			res := f.ask(map[string]any{"prompt": "bump x"})
			f.waitEnd(res.RunID)
			f.editor.Wait("the edit", func() bool { b, _ := f.editor.Buffer(u); return b.Text != text })
			b, _ := f.editor.Buffer(u)
			if want := "const s = '😀😀'; let x = 2; // 🎉\r\nlet y = '𝄞';\r\n"; b.Text != want {
				t.Fatalf("buffer %q, want %q", b.Text, want)
			}
		})
	}
}

func TestNewFileIsCreatedThroughTheEdit(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"pkg/new_test.go","content":"package pkg\n"}`)}},
		llmtest.Turn{Text: "added"},
	)
	f := newFixture(t, nil, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Annotations: true}, nil)
	f.ask(map[string]any{"prompt": "add a test file"})
	u := f.uri("pkg/new_test.go")
	f.editor.Wait("the new buffer", func() bool { b, ok := f.editor.Buffer(u); return ok && b.Text == "package pkg\n" })
	dc := f.editor.Edits()[0].Edit.DocumentChanges
	if _, ok := dc[0].(*protocol.CreateFile); !ok || len(dc) != 2 {
		t.Fatalf("document changes: %#v", dc)
	}
	if _, err := os.Stat(filepath.Join(f.root, "pkg/new_test.go")); err == nil {
		t.Fatal("the server wrote the file itself")
	}
}

// TestNewFileInCocIsExact: coc.nvim's text of the empty buffer of a file it
// creates is one empty line ("\n"); the new file's text replaces it, and
// the buffer holds the text exactly (no empty line after it).
func TestNewFileInCocIsExact(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("write_file", `{"path":"notes.txt","content":"Say hello 🐍.\nTwice.\n"}`)}},
		llmtest.Turn{Text: "added"},
	)
	f := newFixture(t, nil, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Annotations: true, Name: "coc.nvim", NewBufferLine: true}, nil)
	f.ask(map[string]any{"prompt": "add notes"})
	u := f.uri("notes.txt")
	f.editor.Wait("the new buffer", func() bool { b, ok := f.editor.Buffer(u); return ok && b.Version > 0 })
	if b, _ := f.editor.Buffer(u); b.Text != "Say hello 🐍.\nTwice.\n" {
		t.Fatalf("the new file's buffer: %q", b.Text)
	}
}

func TestWithoutAnnotationsTheProposalWaitsForTheUser(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"a.txt","old_string":"one","new_string":"uno"}`)}},
		llmtest.Turn{Text: "translated"},
	)
	f := newFixture(t, map[string]string{"a.txt": "one\ntwo\nthree\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true, ShowDocument: true}, nil)
	res := f.ask(map[string]any{"prompt": "translate"})
	f.waitEnd(res.RunID)
	if len(f.editor.Edits()) != 0 {
		t.Fatal("an unannotated edit was sent without the user asking")
	}
	var shown struct {
		Diff string `json:"diff"`
	}
	if err := f.editor.Command(server.CommandShowProposal, map[string]any{"id": res.ProposalID}, &shown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(shown.Diff, "-one\n+uno\n") {
		t.Fatalf("diff: %q", shown.Diff)
	}
	f.editor.SetRejectEdits(true)
	var applied struct {
		Applied bool `json:"applied"`
	}
	if err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": res.ProposalID}, &applied); err != nil || applied.Applied {
		t.Fatalf("rejected apply: %+v %v", applied, err)
	}
	f.editor.SetRejectEdits(false)
	f.editor.Open(f.uri("a.txt"), "one\ntwo\nthree\n")
	if err := f.editor.Command(server.CommandApplyProposal, "", &applied); err != nil || !applied.Applied {
		t.Fatalf("a rejected proposal must stay pending and apply later: %+v %v", applied, err)
	}
	if b, _ := f.editor.Buffer(f.uri("a.txt")); b.Text != "uno\ntwo\nthree\n" {
		t.Fatalf("buffer %q", b.Text)
	}
	if err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": res.ProposalID}, &applied); err == nil {
		t.Fatal("applying twice must fail")
	}
}

func TestStaleBufferIsRebasedOrRefused(t *testing.T) {
	for _, overlap := range []bool{false, true} {
		t.Run(map[bool]string{false: "rebased", true: "refused"}[overlap], func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t,
				llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"a.txt","old_string":"line 2","new_string":"LINE TWO"}`)}},
				llmtest.Turn{Text: "done"},
			)
			f := newFixture(t, nil, srv, nil)
			f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
			u := f.uri("a.txt")
			f.editor.Open(u, "line 1\nline 2\nline 3\nline 4\n")
			res := f.ask(map[string]any{"prompt": "shout"})
			f.waitEnd(res.RunID)
			typed := "line 1\nline 2\nline 3\nline 4 and more\n"
			if overlap {
				typed = "line 1\nline 2 edited by me\nline 3\nline 4\n"
			}
			f.editor.Type(u, typed)
			var applied struct {
				Applied bool `json:"applied"`
			}
			err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": res.ProposalID}, &applied)
			b, _ := f.editor.Buffer(u)
			if overlap {
				if err == nil || !strings.Contains(err.Error(), "you edited line 2") {
					t.Fatalf("overlap: err %v", err)
				}
				if b.Text != typed {
					t.Fatalf("the user's text was overwritten: %q", b.Text)
				}
				return
			}
			if err != nil || !applied.Applied || b.Text != "line 1\nLINE TWO\nline 3\nline 4 and more\n" {
				t.Fatalf("rebase: %v %+v %q", err, applied, b.Text)
			}
		})
	}
}

func TestCancelMidRunKillsTheCommand(t *testing.T) {
	marker := toolstest.Marker()
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("execute_command", `{"command":"sleep `+marker+` & wait"}`)}},
	)
	f := newFixture(t, nil, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
	f.editor.SetApprove("Allow once")
	res := f.ask(map[string]any{"prompt": "wait a while"})
	f.editor.Wait("the approval request", func() bool { return len(f.editor.Asked()) == 1 })
	toolstest.Poll(t, "the command to start", func() bool { return len(toolstest.Alive(marker)) > 0 })
	f.editor.Notify("window/workDoneProgress/cancel", map[string]any{"token": "agent-lsp/" + res.RunID})
	if end := f.waitEnd(res.RunID); end != "Cancelled" {
		t.Fatalf("progress end %q", end)
	}
	toolstest.Poll(t, "the command's processes to die", func() bool { return len(toolstest.Alive(marker)) == 0 })
}

func TestCancelRequestAnswersRequestCancelled(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Delay: servertest.Timeout, Text: "too late"})
	f := newFixture(t, nil, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		var res askResult
		_, err := f.editor.CallCtx(ctx, "workspace/executeCommand", map[string]any{
			"command": server.CommandAsk, "arguments": []any{map[string]any{"prompt": "slow", "wait": true}}}, &res)
		errc <- err
	}()
	f.editor.Wait("the run to start", func() bool { return len(f.editor.Progress()) > 0 })
	// Editors send $/cancelRequest with the request's numeric id; this
	// connection numbered initialize 1 and the ask 2.
	f.editor.Notify("$/cancelRequest", map[string]any{"id": 2})
	err := <-errc
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32800 {
		t.Fatalf("a cancelled request must answer -32800, got %v", err)
	}
	cancel()
	if end := f.waitEnd("run-1"); end != "Cancelled" {
		t.Fatalf("the run was not cancelled: %q", end)
	}
}

func TestApprovalDeniedWhereTheClientCannotAsk(t *testing.T) {
	for _, c := range []struct {
		name    string
		caps    servertest.Caps
		approve string
		ran     bool
	}{
		{"allowed", servertest.Caps{}, "Allow once", true},
		{"denied", servertest.Caps{}, "Deny", false},
		{"dismissed", servertest.Caps{}, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t,
				llmtest.Turn{Calls: []llmtest.Call{call("execute_command", `{"command":"echo made-by-agent; touch made-by-agent"}`)}},
				llmtest.Turn{Text: "ok"},
			)
			f := newFixture(t, nil, srv, nil)
			f.editor.Initialize(f.root, c.caps, nil)
			f.editor.SetApprove(c.approve)
			var res askResult
			if err := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "touch", "wait": true}, &res); err != nil {
				t.Fatal(err)
			}
			observation := srv.Requests()[1]["messages"].([]any)[3].(map[string]any)["content"].(string)
			if ran := strings.HasPrefix(observation, "made-by-agent\n"); ran != c.ran || res.State != "completed" {
				t.Fatalf("ran=%v want %v; %+v %q", ran, c.ran, res, observation)
			}
			if _, err := os.Stat(filepath.Join(f.root, "made-by-agent")); err == nil {
				t.Fatal("the command wrote into the user's workspace, not its sandbox")
			}
			if !c.ran && !strings.Contains(observation, "did not allow") {
				t.Fatalf("the model was not told: %q", observation)
			}
		})
	}
}

// TestAnUnansweredApprovalIsADenyAfterItsBound: a client that never
// answers showMessageRequest (Vim's ALE) holds the run only as long as
// approval_timeout_s says; the command does not run, the model is told, and
// the log says why.
func TestAnUnansweredApprovalIsADenyAfterItsBound(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("execute_command", `{"command":"echo made-by-agent; touch made-by-agent"}`)}},
		llmtest.Turn{Text: "ok"},
	)
	f := newFixture(t, nil, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{NeverAnswer: true, UserSettings: true}, map[string]any{"approvalTimeoutS": 1})
	var res askResult
	if err := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "echo", "wait": true}, &res); err != nil {
		t.Fatal(err)
	}
	observation := srv.Requests()[1]["messages"].([]any)[3].(map[string]any)["content"].(string)
	if res.State != "completed" || strings.Contains(observation, "made-by-agent\n") || !strings.Contains(observation, "did not allow") {
		t.Fatalf("%+v %q", res, observation)
	}
	if len(f.editor.Asked()) != 1 {
		t.Fatalf("asked %d times, want once", len(f.editor.Asked()))
	}
	if logs := strings.Join(f.editor.Logs(), "\n"); !strings.Contains(logs, "no answer within 1s (approval_timeout_s)") {
		t.Fatalf("the log does not say why:\n%s", logs)
	}
}

func TestTwoRunsAtOnceDoNotInterfere(t *testing.T) {
	srv := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		task := llmtest.FirstUserText(body)
		file := "a.txt"
		if strings.Contains(task, "second") {
			file = "b.txt"
		}
		if llmtest.CountRole(body, "tool") == 0 {
			return llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"`+file+`","old_string":"old","new_string":"new"}`)}}
		}
		return llmtest.Turn{Text: "edited " + file}
	})
	f := newFixture(t, map[string]string{"a.txt": "old a\n", "b.txt": "old b\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Progress: true}, nil)
	var s2 struct {
		Session string `json:"session"`
	}
	first := f.ask(map[string]any{"prompt": "first"})
	if err := f.editor.Command(server.CommandNewSession, nil, &s2); err != nil {
		t.Fatal(err)
	}
	second := f.ask(map[string]any{"prompt": "second", "session": s2.Session})
	for _, r := range []askResult{first, second} {
		var d struct {
			Diff string `json:"diff"`
		}
		f.waitEnd(r.RunID)
		if err := f.editor.Command(server.CommandShowProposal, map[string]any{"id": r.ProposalID}, &d); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{first.ProposalID: "+++ b/a.txt", second.ProposalID: "+++ b/b.txt"}[r.ProposalID]
		if !strings.Contains(d.Diff, want) || strings.Count(d.Diff, "+++") != 1 {
			t.Fatalf("%s: %q", r.ProposalID, d.Diff)
		}
	}
}

// TestAnEmptyArrayIsNoArguments: Neovim encodes the empty Lua table {} as
// [], so :AgentCancel sent [[]] and was answered "cannot unmarshal array";
// [], {} and null all mean a command's defaults.
func TestAnEmptyArrayIsNoArguments(t *testing.T) {
	f := newFixture(t, nil, nil, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	for _, arg := range []any{[]any{}, map[string]any{}, nil} {
		var res struct {
			Cancelled []string `json:"cancelled"`
		}
		if err := f.editor.Command(server.CommandCancel, arg, &res); err != nil {
			t.Errorf("agent.cancel with %#v: %v", arg, err)
		}
	}
	err := f.editor.Command(server.CommandCancel, []any{1}, nil)
	if err == nil || !strings.Contains(err.Error(), "invalid arguments") {
		t.Errorf("a non-empty array is still refused clearly: %v", err)
	}
}

// TestRefusedConfirmationStaysPending: coc.nvim answers applied: true when
// the user answers No to its "Confirm edits" and nothing changed; the
// proposal stays pending, and applies when asked again.
func TestRefusedConfirmationStaysPending(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("edit_file", `{"path":"a.txt","old_string":"one","new_string":"uno"}`)}},
		llmtest.Turn{Text: "translated"},
	)
	f := newFixture(t, map[string]string{"a.txt": "one\ntwo\n"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{Annotations: true}, nil)
	u := f.uri("a.txt")
	f.editor.Open(u, "one\ntwo\n")
	f.editor.SetRefuseConfirmed(true)
	res := f.ask(map[string]any{"prompt": "translate", "uri": u})
	f.editor.Wait("the edit sent", func() bool { return f.editor.EditCount() == 1 })
	state := func() string {
		var st struct {
			Proposals []struct {
				ID    string `json:"id"`
				State string `json:"state"`
			} `json:"proposals"`
		}
		if err := f.editor.Command(server.CommandStatus, nil, &st); err != nil || len(st.Proposals) != 1 {
			t.Fatalf("agent.status proposals: %+v %v", st, err)
		}
		return st.Proposals[0].State
	}
	toolstest.Poll(t, "the answer settled", func() bool { return state() != "applying" })
	if got := state(); got != "pending" {
		t.Fatalf("%s after a refused edit: %s, want pending", res.ProposalID, got)
	}
	f.editor.SetRefuseConfirmed(false)
	var applied struct {
		Applied bool `json:"applied"`
	}
	if err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": res.ProposalID}, &applied); err != nil || !applied.Applied {
		t.Fatalf("the refused proposal applied later: %+v %v", applied, err)
	}
	if b, _ := f.editor.Buffer(u); b.Text != "uno\ntwo\n" {
		t.Errorf("buffer: %q", b.Text)
	}
	if got := state(); got != "applied" {
		t.Errorf("%s: %s, want applied", res.ProposalID, got)
	}
}

// TestCancelRequestStopsFindingTheModel: with no model configured, agent.ask
// finds one first (a local server's, a key's default); $/cancelRequest
// stops that search, and the request answers -32800.
func TestCancelRequestStopsFindingTheModel(t *testing.T) {
	searching, stopped := make(chan struct{}), make(chan error, 1)
	f := newFixture(t, nil, nil, nil, func(o *server.Options) {
		o.FindModel = func(ctx context.Context, s config.Settings) (config.Settings, error) {
			close(searching)
			<-ctx.Done()
			stopped <- ctx.Err()
			return s, ctx.Err()
		}
	})
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := f.editor.CallCtx(context.Background(), "workspace/executeCommand", map[string]any{
			"command": server.CommandAsk, "arguments": []any{map[string]any{"prompt": "which model?"}}}, nil)
		errc <- err
	}()
	<-searching
	f.editor.Notify("$/cancelRequest", map[string]any{"id": 2}) // initialize was 1
	select {
	case err := <-stopped:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the search ended with %v", err)
		}
	case <-time.After(servertest.Timeout):
		t.Fatal("$/cancelRequest did not stop finding the model")
	}
	var rpcErr *jsonrpc2.Error
	if err := <-errc; !errors.As(err, &rpcErr) || rpcErr.Code != -32800 {
		t.Fatalf("the cancelled request answered %v, want -32800", err)
	}
}
