package server_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

func TestApprovalOffersDenyFirstAndShowsTheCommandEscaped(t *testing.T) {
	// A newline, an ESC sequence that would erase the line above and a bidi
	// override: shown as they are, they would hide the rm.
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("execute_command", `{"command":"ls\nrm -rf gone # \u001b[1A\u001b[2Kls\u202etxt.exe"}`)}},
		llmtest.Turn{Text: "ok"},
	)
	f := newFixture(t, map[string]string{"gone/a": "keep me"}, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	f.editor.SetApprove("Deny")
	f.ask(map[string]any{"prompt": "clean up", "wait": true})
	if actions := f.editor.AskedActions(); len(actions) != 1 || !slices.Equal(actions[0], []string{"Deny", "Allow once", "Always allow in this workspace"}) {
		t.Fatalf("actions %q: Deny must come first", actions)
	}
	msg := f.editor.Asked()[0]
	if want := `ls\nrm -rf gone # \x1b[1A\x1b[2Kls\u202etxt.exe`; !strings.Contains(msg, want) {
		t.Fatalf("prompt %q does not show %q", msg, want)
	}
	// Four lines: the question, the command, the reason, and what "Always
	// allow" would admit (rm -rf gone, on a line of its own).
	if strings.ContainsAny(msg, "\x1b\u202e") || strings.Count(msg, "\n") != 4 {
		t.Fatalf("the prompt holds raw controls or extra lines: %q", msg)
	}
	if _, err := os.Stat(filepath.Join(f.root, "gone/a")); err != nil {
		t.Fatal("a denied command ran")
	}
}

// TestApprovalShowsTheCommandAsTyped: the question shows the command as
// shell text, quotes and backslashes as the model wrote them, never
// Go-quoted, and says what "Always allow" would let run from then on.
func TestApprovalShowsTheCommandAsTyped(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("execute_command", `{"command":"printf 'APPROVED-%s\\n' 42"}`)}},
		llmtest.Turn{Text: "ok"},
	)
	f := newFixture(t, nil, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	f.editor.SetApprove("Deny")
	f.ask(map[string]any{"prompt": "print", "wait": true})
	asked := f.editor.Asked()
	if len(asked) != 1 {
		t.Fatalf("asked %q", asked)
	}
	want := `(printf 'APPROVED-%s\n' 42 is not on the allowlist` + "\n" +
		`Always allowing it lets exactly this run without asking in this workspace until agent-lsp exits (any other spelling asks again):` + "\n" +
		`  printf 'APPROVED-%s\n' 42)`
	if !strings.Contains(asked[0], want) {
		t.Fatalf("the question\n%s\ndoes not hold\n%s", asked[0], want)
	}
}

// TestAPromptForACommandDecidedAtRunTimeHasNoAlways: the prompt offers
// Deny and Allow once alone where nothing would be remembered.
func TestAPromptForACommandDecidedAtRunTimeHasNoAlways(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("execute_command", `{"command":"printf %s \"$HOME\""}`)}},
		llmtest.Turn{Text: "ok"},
	)
	f := newFixture(t, nil, srv, nil)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	f.editor.SetApprove("Allow once")
	f.ask(map[string]any{"prompt": "print", "wait": true})
	if actions := f.editor.AskedActions(); len(actions) != 1 || !slices.Equal(actions[0], []string{"Deny", "Allow once"}) {
		t.Fatalf("actions %q", actions)
	}
}
