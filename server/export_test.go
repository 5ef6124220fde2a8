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

// AddPanicActionSource puts a source of code actions that panics first in
// the list, to test that the other sources still list.
func (s *Server) AddPanicActionSource() {
	s.actionSources = append([]actionSource{{"panics", func(l *actionList, _ actionContext) {
		l.command("half-listed", "", "", nil, nil)
		panic("boom")
	}}}, s.actionSources...)
}
