// Package acp is agent-lsp's Agent Client Protocol surface (ACP v1,
// JSON-RPC over stdio, newline-delimited, on github.com/coder/acp-go-sdk):
// the way Zed, JetBrains IDEs, Neovim chat plugins and Emacs agent-shell
// talk to the same agent the language server runs.
//
// It shares everything below the protocol with the language server: the
// settings and their trust rules (config.Load), the model chain, the agent
// (agentrun: a run's life on every wire; strategies, sessions, notes), the workspace view and its
// confinement, the command policy and the sandbox. What is ACP's own:
//
//   - the workspace view reads through the client's fs/read_text_file when
//     it offers it (its unsaved buffers, as LSP overlays), disk otherwise;
//   - a run's edits are staged, never written; at the end of the turn the
//     client is asked (session/request_permission, the safe option first)
//     and only what it accepts is written, through fs/write_text_file when
//     offered, else by us — never behind its back;
//   - commands off the allowlist are approved through
//     session/request_permission and run in our sandbox (never the client's
//     terminal, which would run them outside it);
//   - the run's events become session/update notifications: message and
//     thought chunks (with message ids), tool calls with kinds, locations,
//     diffs and output (a command's as it prints, coalesced and capped,
//     display only: output.go), the plan (the model's checklist, or the
//     plan strategy's steps), and the context meter after each model call
//     (usage.go);
//   - a session offers slash commands (commands.go) and its mode, model and
//     thinking as config options (options.go), which apply from the next
//     turn; images go to a model that sees them (images.go);
//   - what the Go SDK lacks of the current schema (session/delete) is
//     served beside it (compat.go);
//   - a session's workspace is its cwd plus the client's
//     additionalDirectories (unstable in ACP), each a root of the view as
//     an LSP client's workspace folders are; turns start in cwd, whose
//     settings, notes and policy are the session's.
//
// Invariants: no file is written without the client's answer; every path
// from the client or the model is confined to the session's roots; a
// malformed message gets a JSON-RPC error and never stops the server;
// session/cancel answers the pending prompt with "cancelled" at once and
// kills the run's commands.
package acp
