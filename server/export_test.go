package server

import (
	"context"

	"go.lsp.dev/jsonrpc2"
)

// AddPanicMethod registers a method whose handler panics, to test that a
// panic answers with an error and the server keeps serving.
func (s *Server) AddPanicMethod(method string) {
	s.handlers[method] = func(context.Context, jsonrpc2.RawMessage) (any, error) { panic("boom") }
}
