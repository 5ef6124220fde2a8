package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// lspCodec marshals payloads with protocol's union-aware Marshal/Unmarshal,
// as protocol.NewServer does; we build the connection ourselves to own
// cancellation, panics and malformed input.
type lspCodec struct{}

func (lspCodec) Marshal(v any) ([]byte, error) {
	if raw, ok := v.(jsonrpc2.RawMessage); ok {
		if raw == nil {
			return []byte("null"), nil
		}
		return raw, nil
	}
	return protocol.Marshal(v)
}

func (lspCodec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// frameReader is the raw-frame side of jsonrpc2's header stream.
type frameReader interface {
	ReadFrame(ctx context.Context) ([]byte, int64, error)
}

// tolerantStream answers a frame that is not JSON-RPC with an error response
// and reads on, where jsonrpc2 would end the connection. Framing errors (a bad
// Content-Length) still end it: the stream cannot be trusted after one.
type tolerantStream struct {
	jsonrpc2.Stream
	frames frameReader
	log    *slog.Logger
}

func newTolerantStream(rwc io.ReadWriteCloser, log *slog.Logger) *tolerantStream {
	inner := jsonrpc2.NewHeaderStream(rwc)
	return &tolerantStream{Stream: inner, frames: inner.(frameReader), log: log}
}

func (s *tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		frame, n, err := s.frames.ReadFrame(ctx)
		if err != nil {
			return nil, n, err
		}
		msg, err := jsonrpc2.DecodeMessage(frame)
		if err == nil {
			return msg, n, nil
		}
		code, id := jsonrpc2.ParseError, jsonrpc2.ID{}
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(frame, &probe) == nil {
			code = jsonrpc2.InvalidRequest
			var num int64
			var str string
			switch {
			case json.Unmarshal(probe.ID, &num) == nil:
				id = jsonrpc2.NewNumberID(num)
			case json.Unmarshal(probe.ID, &str) == nil:
				id = jsonrpc2.NewStringID(str)
			}
		}
		s.log.Warn("malformed message", "error", err, "bytes", len(frame))
		resp := jsonrpc2.NewResponse(id, nil, jsonrpc2.NewError(code, fmt.Sprintf("malformed message: %v", err)))
		if _, werr := s.Stream.Write(ctx, resp); werr != nil {
			return nil, 0, werr
		}
	}
}

// inflight tracks the calls being handled so $/cancelRequest can cancel them.
type inflight struct {
	mu      sync.Mutex // guards cancels
	cancels map[jsonrpc2.ID]context.CancelFunc
}

func (f *inflight) add(id jsonrpc2.ID, cancel context.CancelFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cancels == nil {
		f.cancels = map[jsonrpc2.ID]context.CancelFunc{}
	}
	f.cancels[id] = cancel
}

func (f *inflight) remove(id jsonrpc2.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.cancels, id)
}

func (f *inflight) cancel(id jsonrpc2.ID) {
	f.mu.Lock()
	cancel := f.cancels[id]
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Preempt handles $/cancelRequest on the read loop, ahead of the requests
// queued behind it, for numeric and string ids alike.
func (s *Server) Preempt(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if req.Method() != protocol.MethodCancelRequest {
		return nil, jsonrpc2.ErrNotHandled
	}
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(req.Params(), &p); err == nil {
		var num int64
		var str string
		switch {
		case json.Unmarshal(p.ID, &num) == nil:
			s.inflight.cancel(jsonrpc2.NewNumberID(num))
		case json.Unmarshal(p.ID, &str) == nil:
			s.inflight.cancel(jsonrpc2.NewStringID(str))
		}
	}
	return true, nil
}

// asyncMethods run concurrently with the messages after them.
// Completion waits (debounce, model) without holding up didChange.
var asyncMethods = map[string]bool{
	protocol.MethodWorkspaceExecuteCommand:      true,
	protocol.MethodTextDocumentInlineCompletion: true,
	protocol.MethodTextDocumentCompletion:       true,
	methodInlineEdit:                            true,
}

// handlerFunc handles one method with its raw params.
type handlerFunc func(ctx context.Context, params jsonrpc2.RawMessage) (any, error)

// handle is the connection's single entry point: it guards against panics
// (an error response, and the server keeps serving), enforces the lifecycle,
// makes every call cancellable, and answers a cancelled call with -32800.
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	method := req.Method()
	isCall := req.IsCall()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in handler", "method", method, "panic", r, "stack", string(debug.Stack()))
			result = nil
			err = nil
			if isCall {
				err = jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("internal error in %s: %v", method, r))
			}
		}
	}()
	h, known := s.handlers[method]
	if !known {
		if !isCall {
			return nil, nil // unknown notifications ($/setTrace, …) are ignored, as the spec asks
		}
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, fmt.Sprintf("method not found: %s", method))
	}
	if method != protocol.MethodInitialize && method != protocol.MethodExit && !s.lifecycle.initialized() {
		if !isCall {
			return nil, nil
		}
		return nil, jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "server not initialized")
	}
	// The request's own context is pooled and recycled when the handler
	// returns; a child of it would outlive it. Handlers get the
	// connection's, or a child of it.
	conn := jsonrpc2.DetachContext(ctx)
	if !isCall {
		if _, err := h(onReadLoop(conn, conn), req.Params()); err != nil {
			// A notification has no response; an error must not end the connection.
			s.log.Warn("notification failed", "method", method, "error", err)
		}
		return nil, nil
	}
	id := req.ID()
	onReader := !asyncMethods[method]
	if !onReader {
		// These may wait on the client (applyEdit, showDocument): release the
		// read loop so its answers, and didChange, keep flowing.
		jsonrpc2.Async(ctx)
	}
	// Cancelled through $/cancelRequest (inflight).
	ctx, cancel := context.WithCancel(conn)
	defer cancel()
	if onReader {
		ctx = onReadLoop(ctx, conn)
	}
	s.inflight.add(id, cancel)
	defer s.inflight.remove(id)
	result, err = h(ctx, req.Params())
	if ctx.Err() != nil {
		return nil, protocol.ErrRequestCancelled
	}
	return result, displayError(err)
}

// decode unmarshals params, turning a failure into InvalidParams.
func decode(params jsonrpc2.RawMessage, v any) error {
	if len(params) == 0 {
		params = jsonrpc2.RawMessage("{}")
	}
	if err := protocol.Unmarshal(params, v); err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("invalid params: %v", err))
	}
	return nil
}
