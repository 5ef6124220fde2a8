package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools"
)

func TestAskKeepsTheAgentsNotesOnlyWithApply(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"hello.py": helloPy})
	env := map[string]string{"AGENT_LSP_MODEL": "m", "XDG_STATE_HOME": t.TempDir()}
	remember := func() *llmtest.Server {
		srv := llmtest.NewOpenAIServer(t,
			llmtest.Turn{Calls: []llmtest.Call{{Name: "remember", Args: `{"note":"greet() is the entry point"}`}}},
			llmtest.Turn{Text: "Noted."},
			llmtest.Turn{Text: "next"},
		)
		env["OPENAI_BASE_URL"] = srv.URL + "/v1"
		return srv
	}
	srv := remember()
	r := runCLI(t, env, "ask", "--workspace", ws, "learn the project")
	if r.code != 0 || r.stdout != "Noted.\n\nThe agent wants to remember:\n- greet() is the entry point\n" ||
		!strings.Contains(r.stderr, "1 note(s) not kept (use --apply") {
		t.Fatalf("exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	runCLI(t, env, "ask", "--workspace", ws, "and now?")
	if sys := systemOf(srv.Requests()[2]); strings.Contains(sys, "entry point") {
		t.Fatal("a note printed without --apply was kept")
	}
	for _, flag := range []string{"--apply", "--apply-sensitive"} {
		srv = remember()
		if r = runCLI(t, env, "ask", flag, "--workspace", ws, "learn the project"); r.code != 0 || !strings.Contains(r.stderr, "kept 1 note(s)") {
			t.Fatalf("%s: exit %d\n%s", flag, r.code, r.stderr)
		}
		runCLI(t, env, "ask", "--workspace", ws, "and now?")
		if sys := systemOf(srv.Requests()[2]); strings.Count(sys, "- greet() is the entry point") != 1 {
			t.Fatalf("%s: the kept note is not in the next run's prompt once:\n%s", flag, sys)
		}
	}
}

func systemOf(req map[string]any) string {
	return req["messages"].([]any)[0].(map[string]any)["content"].(string)
}

func TestTerminalApproverOffersDenyFirstAndEscapes(t *testing.T) {
	req := tools.ApprovalRequest{Command: "ls\nrm -rf ~ \x1b[1A\x1b[2K\u202etxt.exe", Reasons: []string{"rm is not allowlisted"}}
	for answer, want := range map[string]tools.Decision{"\n": tools.Deny, "y\n": tools.AllowOnce, "a\n": tools.AllowAlways, "": tools.Deny} {
		var out bytes.Buffer
		approver := &terminalApprover{in: bufio.NewReader(strings.NewReader(answer)), out: &out, tty: true}
		got, err := approver.Approve(context.Background(), req)
		if err != nil || got != want {
			t.Errorf("answer %q: %v %v, want %v", answer, got, err, want)
		}
		prompt := out.String()
		if !strings.Contains(prompt, `  ls\nrm -rf ~ \x1b[1A\x1b[2K\u202etxt.exe`+"\n") || strings.ContainsAny(prompt, "\x1b\u202e") {
			t.Fatalf("the command is not shown escaped: %q", prompt)
		}
		if deny, once := strings.Index(prompt, "Deny [N]"), strings.Index(prompt, "allow once"); deny < 0 || once < deny {
			t.Fatalf("Deny must be offered first: %q", prompt)
		}
	}
	var out bytes.Buffer
	got, _ := (&terminalApprover{in: bufio.NewReader(strings.NewReader("y\n")), out: &out}).Approve(context.Background(), req)
	if got != tools.Deny || strings.ContainsAny(out.String(), "\x1b\u202e") || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("not a terminal: %v %q", got, out.String())
	}
}

// TestTerminalApproverOffersOnceOnlyWhereNothingIsRemembered: a command
// decided at run time is offered Deny and Allow once; "a" denies it.
func TestTerminalApproverOffersOnceOnlyWhereNothingIsRemembered(t *testing.T) {
	req := tools.ApprovalRequest{Command: "rm $X", Reasons: []string{"rm $X is not on the allowlist"}, OnceOnly: true}
	for answer, want := range map[string]tools.Decision{"y\n": tools.AllowOnce, "a\n": tools.Deny} {
		var out bytes.Buffer
		got, err := (&terminalApprover{in: bufio.NewReader(strings.NewReader(answer)), out: &out, tty: true}).Approve(context.Background(), req)
		if err != nil || got != want {
			t.Errorf("answer %q: %v %v, want %v", answer, got, err, want)
		}
		if prompt := out.String(); !strings.HasSuffix(prompt, "Deny [N] or allow once [y]? ") {
			t.Errorf("the prompt offers more: %q", prompt)
		}
	}
}

func TestAskApplySensitiveWritesWhatApplyLeavesOut(t *testing.T) {
	for _, flag := range []string{"--apply", "--apply-sensitive"} {
		ws := newWorkspace(t, map[string]string{"hello.py": helloPy})
		srv := llmtest.NewOpenAIServer(t,
			llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":".vscode/tasks.json","content":"{}\n"}`}}},
			llmtest.Turn{Text: "added a task"},
		)
		r := runCLI(t, map[string]string{"AGENT_LSP_MODEL": "m", "OPENAI_BASE_URL": srv.URL + "/v1"}, "ask", flag, "--workspace", ws, "add a task")
		_, err := os.Stat(filepath.Join(ws, ".vscode", "tasks.json"))
		if written := err == nil; r.code != 0 || written != (flag == "--apply-sensitive") {
			t.Fatalf("%s: exit %d, written %v\n%s", flag, r.code, written, r.stderr)
		}
	}
}
