package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

type scriptedApprover struct {
	decision Decision
	err      error
	asked    []ApprovalRequest
}

func (a *scriptedApprover) Approve(_ context.Context, req ApprovalRequest) (Decision, error) {
	a.asked = append(a.asked, req)
	return a.decision, a.err
}

func commandRegistry(t *testing.T, root string, approver Approver, limits CommandLimits) *Registry {
	t.Helper()
	w, err := NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	r, err := NewRegistry(NewExecuteCommand(w, NewPolicy(DefaultAllowlist), approver, limits))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestExecuteCommandOutputAndExitCode(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "alpha\n"})
	r := commandRegistry(t, root, nil, CommandLimits{})
	res := call(t, r, "execute_command", map[string]any{"command": "cat a.txt; ls missing-file"})
	out := res.Data.(CommandOutcome)
	if out.ExitCode == 0 || !res.IsError {
		t.Fatalf("exit code %d, want non-zero", out.ExitCode)
	}
	if !strings.HasPrefix(res.Text, "alpha\n[stderr]\n") || !strings.Contains(res.Text, "missing-file") ||
		!strings.HasSuffix(res.Text, "[exit code: 2]") {
		t.Fatalf("output:\n%s", res.Text)
	}
}

func TestExecuteCommandApproval(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct {
		name     string
		approver Approver
		wantRun  bool
	}{
		{"no way to ask", nil, false},
		{"denied", &scriptedApprover{decision: Deny}, false},
		{"client failed to ask", &scriptedApprover{decision: AllowOnce, err: errors.New("method not found")}, false},
		{"allowed once", &scriptedApprover{decision: AllowOnce}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := commandRegistry(t, root, c.approver, CommandLimits{})
			res := call(t, r, "execute_command", map[string]any{"command": "echo ran; touch made.txt"})
			if ran := strings.HasPrefix(res.Text, "ran\n"); ran != c.wantRun {
				t.Fatalf("ran=%v want %v; result %+v", ran, c.wantRun, res)
			}
			if !c.wantRun && (!res.IsError || !strings.Contains(res.Text, "did not allow")) {
				t.Fatalf("denial must be an observation: %+v", res)
			}
			if _, err := os.Stat(filepath.Join(root, "made.txt")); err == nil {
				t.Fatal("the command wrote into the user's workspace, not the sandbox")
			}
		})
	}
	a := &scriptedApprover{decision: AllowAlways}
	r := commandRegistry(t, root, a, CommandLimits{})
	call(t, r, "execute_command", map[string]any{"command": "touch x.txt"})
	call(t, r, "execute_command", map[string]any{"command": "touch x.txt"})
	if len(a.asked) != 1 || a.asked[0].Command != "touch x.txt" {
		t.Fatalf("AllowAlways must ask once: %+v", a.asked)
	}
}

func TestExecuteCommandTimeoutKillsGrandchildren(t *testing.T) {
	root := t.TempDir()
	r := commandRegistry(t, root, &scriptedApprover{decision: AllowOnce}, CommandLimits{Timeout: 300 * time.Millisecond})
	marker := toolstest.Marker()
	// The grandchild sleeps; it must die with the command.
	res := call(t, r, "execute_command", map[string]any{"command": "bash -c 'sleep " + marker + " & wait'"})
	out := res.Data.(CommandOutcome)
	if !out.TimedOut || !strings.Contains(res.Text, "timeout") {
		t.Fatalf("not reported as a timeout: %+v", res)
	}
	toolstest.Poll(t, "the command's processes to die", func() bool { return len(toolstest.Alive(marker)) == 0 })
}

func TestExecuteCommandCancellationKillsTheGroup(t *testing.T) {
	root := t.TempDir()
	r := commandRegistry(t, root, &scriptedApprover{decision: AllowOnce}, CommandLimits{})
	marker := toolstest.Marker()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		toolstest.Poll(t, "the command to start", func() bool { return len(toolstest.Alive(marker)) > 0 })
		cancel()
	}()
	args, _ := json.Marshal(map[string]any{"command": "sleep " + marker + " & wait"})
	_, err := r.Execute(ctx, "execute_command", args)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	toolstest.Poll(t, "the command's processes to die", func() bool { return len(toolstest.Alive(marker)) == 0 })
}

func TestExecuteCommandCutsOutputInTheMiddle(t *testing.T) {
	root := t.TempDir()
	r := commandRegistry(t, root, nil, CommandLimits{MaxOutput: 2000})
	res := call(t, r, "execute_command", map[string]any{"command": "echo FIRST; head -c 100000 /dev/zero | tr '\\0' x; echo; echo LAST"})
	if !strings.HasPrefix(res.Text, "FIRST\n") || !strings.Contains(res.Text, "LAST\n[exit code: 0]") {
		t.Fatalf("head or tail lost: %.60q … %q", res.Text, res.Text[len(res.Text)-60:])
	}
	if !strings.Contains(res.Text, "bytes cut from the middle") || len(res.Text) > 2200 {
		t.Fatalf("not cut (%d bytes)", len(res.Text))
	}
}

func TestMiddleCutKeepsHeadAndTail(t *testing.T) {
	m := newMiddleCut(10)
	for _, chunk := range []string{"abc", "defgh", "ijklmnop", "qr", "stuvwxyz"} {
		m.Write([]byte(chunk))
	}
	if got := m.String(); got != "abcde\n[… 16 bytes cut from the middle …]\nvwxyz" {
		t.Fatalf("%q", got)
	}
	small := newMiddleCut(100)
	small.Write([]byte("short"))
	if small.String() != "short" {
		t.Fatal(small.String())
	}
}

// TestAModelsTimeoutIsCappedByTheUsersLimit: a model asking for an hour
// gets the user's limit.
func TestAModelsTimeoutIsCappedByTheUsersLimit(t *testing.T) {
	root := t.TempDir()
	r := commandRegistry(t, root, &scriptedApprover{decision: AllowOnce}, CommandLimits{Timeout: 300 * time.Millisecond})
	marker := toolstest.Marker()
	res := call(t, r, "execute_command", map[string]any{"command": "sleep " + marker, "timeout_s": 3600})
	if out := res.Data.(CommandOutcome); !out.TimedOut {
		t.Fatalf("the model's timeout_s outlived the user's limit: %+v", out)
	}
	toolstest.Poll(t, "the command to die", func() bool { return len(toolstest.Alive(marker)) == 0 })
}
