package server

import (
	"context"
	"errors"
	"log/slog"

	"go.lsp.dev/protocol"
)

// The read loop never waits on the client. Notifications, and the requests
// not released from it (asyncMethods), are handled on the goroutine that
// reads the connection, in wire order. A call to the client made there
// would wait for an answer only that goroutine can read: every request,
// didChange and $/cancelRequest would stop until the call's bound. So a
// handler's context says it runs on the read loop (onReadLoop), work that
// must ask the client goes beside it (besideReader), and the calls that
// wait refuse a read-loop context at once (readerGuard) instead of stalling.

// readLoopKey marks the context of a handler running on the read loop; its
// value is the connection's context, for the work it sends beside.
type readLoopKey struct{}

// onReadLoop marks ctx, a handler's on the read loop, whose connection's
// context is conn.
func onReadLoop(ctx, conn context.Context) context.Context {
	return context.WithValue(ctx, readLoopKey{}, conn)
}

// besideReader is the context of work a read-loop handler starts on a
// goroutine of its own: the connection's, unmarked, so the work may wait
// on the client; it ends with the connection, not with the handler.
func besideReader(ctx context.Context) context.Context {
	if conn, ok := ctx.Value(readLoopKey{}).(context.Context); ok {
		return conn
	}
	return ctx
}

// errOnReadLoop refuses a waiting call made on the read loop.
var errOnReadLoop = errors.New("refused: a call to the client that waits for its answer was made on the read loop, which reads that answer")

// readerGuard is the client with its waiting calls refused on the read
// loop: a handler that would stall the connection fails at once, logged as
// the bug it is.
type readerGuard struct {
	protocol.Client
	log *slog.Logger
}

func (c readerGuard) refuse(ctx context.Context, method string) error {
	if ctx.Value(readLoopKey{}) == nil {
		return nil
	}
	c.log.Error("a call that waits on the client was made on the read loop", "method", method)
	return errOnReadLoop
}

func (c readerGuard) ShowDocument(ctx context.Context, p *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	if err := c.refuse(ctx, protocol.MethodWindowShowDocument); err != nil {
		return nil, err
	}
	return c.Client.ShowDocument(ctx, p)
}

func (c readerGuard) ShowMessageRequest(ctx context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	if err := c.refuse(ctx, protocol.MethodWindowShowMessageRequest); err != nil {
		return nil, err
	}
	return c.Client.ShowMessageRequest(ctx, p)
}

func (c readerGuard) ApplyEdit(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	if err := c.refuse(ctx, protocol.MethodWorkspaceApplyEdit); err != nil {
		return nil, err
	}
	return c.Client.ApplyEdit(ctx, p)
}

func (c readerGuard) WorkDoneProgressCreate(ctx context.Context, p *protocol.WorkDoneProgressCreateParams) error {
	if err := c.refuse(ctx, protocol.MethodWindowWorkDoneProgressCreate); err != nil {
		return err
	}
	return c.Client.WorkDoneProgressCreate(ctx, p)
}

func (c readerGuard) Configuration(ctx context.Context, p *protocol.ConfigurationParams) ([]protocol.LSPAny, error) {
	if err := c.refuse(ctx, protocol.MethodWorkspaceConfiguration); err != nil {
		return nil, err
	}
	return c.Client.Configuration(ctx, p)
}

func (c readerGuard) WorkspaceFolders(ctx context.Context) ([]protocol.WorkspaceFolder, error) {
	if err := c.refuse(ctx, protocol.MethodWorkspaceWorkspaceFolders); err != nil {
		return nil, err
	}
	return c.Client.WorkspaceFolders(ctx)
}
