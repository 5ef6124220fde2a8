package main

import (
	"context"
	"fmt"
	"io"
)

func serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	fmt.Fprintln(stderr, "agent-lsp: the language server lands with the next change; use `agent-lsp ask`")
	return exitUsage
}
