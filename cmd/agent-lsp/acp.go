package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/server/acp"
)

// acpServe runs the agent as an Agent Client Protocol agent on stdin/stdout
// (Zed, JetBrains, CodeCompanion, agent-shell). stdout carries only the
// protocol; logs go to stderr at the level -log-level gives.
func acpServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	level := fs.String("log-level", "warn", "stderr log level: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		lvl = slog.LevelWarn
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	ps := newProviders()
	self, _ := os.Executable() // for the sign-in's command line ("agent-lsp" where unknown)
	err := acp.Serve(ctx, acp.Options{
		NewProvider: ps.New,
		FindModel: func(ctx context.Context, s config.Settings) (config.Settings, error) {
			return detectModel(ctx, s, logWriter{logger})
		},
		// The session's model picker lists what `agent-lsp models` lists.
		ListModels: listProviderModels,
		Env:        env,
		Logger:     logger,
		Version:    versionString(),
		Executable: self,
	}, stdin, stdout)
	if err != nil {
		logger.Error("acp", "error", err)
		return exitFailed
	}
	return exitOK
}
