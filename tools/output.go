package tools

import (
	"context"
	"io"
)

type outputKey struct{}

// WithOutput returns a context whose commands also hand their output to
// show as it comes (stdout and stderr, each as the command writes it), for
// display only: the command's result is what the model gets, and nothing
// show does reaches the command. show must be quick, must not keep p, and
// must be safe for concurrent use (the two streams are copied apart).
func WithOutput(ctx context.Context, show func(p []byte)) context.Context {
	return context.WithValue(ctx, outputKey{}, show)
}

// teeOutput is w, also writing to the context's output display if any.
func teeOutput(ctx context.Context, w io.Writer) io.Writer {
	show, ok := ctx.Value(outputKey{}).(func([]byte))
	if !ok || show == nil {
		return w
	}
	return io.MultiWriter(w, showWriter(show))
}

type showWriter func([]byte)

func (s showWriter) Write(p []byte) (int, error) {
	s(p)
	return len(p), nil
}
