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
//     else disk — as open documents, never through disk: every file of its
//     language the run staged or the editor holds unsaved is opened before
//     any check or question, and each question holds the server (Use) with
//     its documents made the run's text first; the editor's changes of a
//     document it has open are sent as they happen (follow.go); nothing
//     here writes a file, and a server's workspace/applyEdit is staged into
//     the changeset of the run holding the server, never applied; a run
//     that stages a build file (go.mod, package.json …), which servers read
//     from disk only, or creates a file in a new folder (gopls), gets an
//     instance of its own on the view its commands see (the workspace with
//     the staged files, tools.Commands.StagedView; below the sandbox's
//     level full a copy, whose paths the client maps where it makes and
//     reads URIs: a document's text reaches the server byte for byte),
//     stopped at the run's end while the shared one serves the others;
//   - a document's versions only rise over a server's life; a diagnostic is
//     used only for the version it was computed on (a pull, or a push
//     carrying that version);
//   - a verdict is one of three (Report.Verdict): the new errors against
//     the run's baseline (what was broken before the run is not the
//     agent's), no new errors, or not known with why — a version not said
//     in time, a file whose package or project the server did not load
//     (LoadedProbe), the users of a change while the server is still at
//     work past the wait, a server that could not be used; never clean on
//     what was not proved;
//   - what is sent is go.lsp.dev/protocol's typed params, what is read is
//     read leniently; a request given up is cancelled at the server;
//   - servers run project code, so they start through a Starter, which in
//     production is the sandbox's (sandbox.Start), and every start goes
//     through the Manager's one approval where the sandbox's level asks
//     (Options.MustAsk); a server that fails, hangs or floods is reported
//     and the run goes on without it.
package langserver
