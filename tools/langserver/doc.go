// Package langserver is the agent's side of the project's language servers
// (gopls, pyright, typescript-language-server, clangd, rust-analyzer): a
// client over JSON-RPC (go.lsp.dev/jsonrpc2), a Manager that starts one
// server per (root, server) when a run first needs it, keeps it warm across
// runs and stops it when idle, and a run's Session, which gives the model
// the new errors of each edit, definition/references/symbols by name and
// rename, and checks the whole proposal at the run's end.
//
// Invariants:
//   - a server sees the run's view — staged text, else the editor's buffer,
//     else disk — as open documents with rising versions, never through
//     disk; the editor's changes of a document it has open are sent as
//     they happen (follow.go); nothing here writes a file, and a server's workspace/applyEdit
//     is staged into the run's changeset, never applied; a run that
//     stages a build file (go.mod, package.json …), which servers read
//     from disk only, or creates a file in a new folder (gopls), gets an
//     instance of its own on the view its commands see (the workspace with
//     the staged files, tools.Commands.StagedView; below the sandbox's
//     level full a copy, whose paths MapPaths maps), stopped at the run's
//     end while the shared one serves the others;
//   - a diagnostic is used only for the version it was computed on (a pull,
//     or a push carrying that version); otherwise the answer is "not known
//     yet", never a stale error;
//   - errors are judged against the run's baseline: what was broken before
//     the run is not the agent's;
//   - servers run project code, so they start through a Starter, which in
//     production is the sandbox's (sandbox.Start); a server that fails,
//     hangs or floods is reported and the run goes on without it.
package langserver
