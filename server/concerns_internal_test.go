package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/server/documents"
	"github.com/agent-lsp/agent-lsp/tools"
)

// scriptedClient is the editor as a concern of the server sees it through
// its window, with no connection: it records the messages and answers
// questions with answer, or as Helix does where it is "".
type scriptedClient struct {
	protocol.Client
	answer string

	mu       sync.Mutex
	messages []string
	asked    []string
}

func (c *scriptedClient) ShowMessage(_ context.Context, p *protocol.ShowMessageParams) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.messages = append(c.messages, p.Message)
	return nil
}

func (c *scriptedClient) LogMessage(context.Context, *protocol.LogMessageParams) error { return nil }

func (c *scriptedClient) ShowMessageRequest(_ context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	c.mu.Lock()
	c.asked = append(c.asked, p.Message)
	c.mu.Unlock()
	if c.answer == "" {
		return nil, errors.New("method not found") // as Helix answers
	}
	return &protocol.MessageActionItem{Title: c.answer}, nil
}

// servertestTimeout bounds a wait, as servertest.Timeout does.
const servertestTimeout = 20 * time.Second

func testWindow(t *testing.T, c protocol.Client, caps clientCaps) *window {
	ref := &capsRef{}
	ref.Store(&caps)
	return &window{client: c, caps: ref, cacheDir: t.TempDir(), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// TestApprovalsWithoutAConnection: the approvals ask through the window,
// and where the client may not answer a prompt, a code action's answer
// counts.
func TestApprovalsWithoutAConnection(t *testing.T) {
	client := &scriptedClient{answer: approveOnce}
	ap := &approvals{win: testWindow(t, client, clientCaps{messageActions: true})}
	d, err := ap.approver("run-1", servertestTimeout).Approve(context.Background(), tools.ApprovalRequest{Command: "make test", Reasons: []string{"not on the allowlist"}})
	if err != nil || d != tools.AllowOnce || len(client.asked) != 1 || !strings.Contains(client.asked[0], "make test") {
		t.Fatalf("%v %v, asked %q", d, err, client.asked)
	}
	cannot := &approvals{win: testWindow(t, &scriptedClient{answer: ""}, clientCaps{})}
	done := make(chan tools.Decision, 1)
	go func() {
		d, _ := cannot.approver("run-2", servertestTimeout).Approve(context.Background(), tools.ApprovalRequest{Command: "make lint"})
		done <- d
	}()
	deadline := time.Now().Add(servertestTimeout)
	for len(cannot.list()) == 0 { // the question is listed as the run asks
		if time.Now().After(deadline) {
			t.Fatal("no question waits for a code action's answer")
		}
		runtime.Gosched()
	}
	var l actionList
	cannot.actions(&l)
	if len(l.actions) != 3 {
		t.Fatalf("%d answers offered as code actions, want 3", len(l.actions))
	}
	if _, err := cannot.approve(context.Background(), approveArgs{ID: "approval-1", Decision: "always"}); err != nil {
		t.Fatal(err)
	}
	if d := <-done; d != tools.AllowAlways {
		t.Fatalf("the code action's answer: %v", d)
	}
}

// TestAppliedWithoutAConnection: a proposal is applied once the editor's
// buffer holds it, and the user is told through the window.
func TestAppliedWithoutAConnection(t *testing.T) {
	client := &scriptedClient{}
	win := testWindow(t, client, clientCaps{documentChanges: true, createFiles: true})
	runs, docs := &registry{}, documents.New()
	ps := &proposals{runs: runs, docs: docs, win: win, workspace: &workspaceConfig{}, offers: &offers{win: win}}
	ps.notes = &noteKeeper{workspace: ps.workspace, runs: runs, win: win}
	path := filepath.Join(t.TempDir(), "a.txt")
	r := newRun("s", "upper", "upper", config.Settings{}, nil)
	runs.add(r, false)
	runs.propose(r, []tools.Change{{Path: "a.txt", AbsPath: path, Existed: true, Original: "a\n", New: "A\n"}})
	if err := docs.Open(protocol.TextDocumentItem{URI: uri.File(path), Version: 1, Text: "a\n"}); err != nil {
		t.Fatal(err)
	}
	ps.noticeApplied(context.Background(), path)
	if st := runs.proposalStatuses()[0].State; st != proposalPending {
		t.Fatalf("applied before the editor held it: %s", st)
	}
	docs.Change(&protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.File(path)}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "A\n"}},
	}, documents.UTF16)
	ps.noticeApplied(context.Background(), path)
	if st := runs.proposalStatuses()[0].State; st != proposalApplied {
		t.Fatalf("state %s once the editor held it", st)
	}
	if !slices.ContainsFunc(client.messages, func(m string) bool { return strings.Contains(m, "proposal-1 is applied") }) {
		t.Fatalf("messages %q", client.messages)
	}
}
