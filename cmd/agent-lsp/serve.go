package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/server"
)

// serve runs the language server on stdin/stdout. Logs go to stderr (clients
// show or store it) at the level -log-level gives.
func serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	level := fs.String("log-level", "warn", "stderr log level: debug, info, warn, error")
	_ = fs.Bool("stdio", true, "serve on stdio (the only transport; accepted for clients that pass it)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		lvl = slog.LevelWarn
	}
	cacheDir := ""
	if dir := env("XDG_CACHE_HOME"); dir != "" {
		cacheDir = filepath.Join(dir, "agent-lsp")
	}
	ps := newProviders()
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	s := server.New(server.Options{
		FindModel: func(ctx context.Context, s config.Settings) (config.Settings, error) {
			return detectModel(ctx, s, logWriter{logger})
		},
		NewProvider: ps.New,
		NewInfiller: ps.NewInfiller,
		NewNES:      ps.NewNES,
		Breakers:    ps.breakers.States,
		Env:         env,
		CacheDir:    cacheDir,
		Logger:      logger,
		Version:     versionString(),
	})
	return s.Serve(ctx, stdio{stdin, stdout})
}

// logWriter sends what detection says to the server log.
type logWriter struct{ l *slog.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.Info(strings.TrimSpace(string(p)))
	return len(p), nil
}

// stdio joins the process's stdin and stdout into one connection.
type stdio struct {
	io.Reader
	io.Writer
}

func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok && s.Reader != os.Stdin {
		c.Close()
	}
	return nil
}
