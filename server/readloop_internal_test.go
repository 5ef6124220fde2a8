package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"go.lsp.dev/protocol"
)

// answeringClient answers showDocument and applyEdit, counting the calls
// that reached it.
type answeringClient struct {
	protocol.Client
	calls int
}

func (c *answeringClient) ShowDocument(context.Context, *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	c.calls++
	return &protocol.ShowDocumentResult{Success: true}, nil
}

func (c *answeringClient) ApplyEdit(context.Context, *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	c.calls++
	return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
}

// TestACallThatWaitsIsRefusedOnTheReadLoop: a waiting call made with a
// read-loop handler's context fails at once instead of stalling the
// connection; the same work sent beside the reader reaches the client.
func TestACallThatWaitsIsRefusedOnTheReadLoop(t *testing.T) {
	inner := &answeringClient{}
	client := readerGuard{inner, slog.New(slog.NewTextHandler(io.Discard, nil))}
	conn := context.Background()
	onReader := onReadLoop(conn, conn)
	if _, err := client.ShowDocument(onReader, &protocol.ShowDocumentParams{}); !errors.Is(err, errOnReadLoop) {
		t.Fatalf("showDocument on the read loop: %v", err)
	}
	if _, err := client.ApplyEdit(context.WithoutCancel(onReader), &protocol.ApplyWorkspaceEditParams{}); !errors.Is(err, errOnReadLoop) {
		t.Fatalf("applyEdit from a context made of the read loop's: %v", err)
	}
	if inner.calls != 0 {
		t.Fatalf("%d refused calls reached the client", inner.calls)
	}
	if res, err := client.ShowDocument(besideReader(onReader), &protocol.ShowDocumentParams{}); err != nil || !res.Success {
		t.Fatalf("showDocument beside the reader: %+v %v", res, err)
	}
	if inner.calls != 1 {
		t.Fatalf("%d calls reached the client, want 1", inner.calls)
	}
}
