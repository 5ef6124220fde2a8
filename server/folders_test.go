package server_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// What a multi-root workspace (VS Code's, or an editor opened on a
// monorepo's packages) gets over the wire: every folder is a root, paths
// start with its name, and folders come and go between runs.

// toolResults are the tool results the model was sent, in order, by the
// last request the server made.
func toolResults(srv *llmtest.Server) []string {
	reqs := srv.Requests()
	msgs, _ := reqs[len(reqs)-1]["messages"].([]any)
	var out []string
	for _, m := range msgs {
		if m, _ := m.(map[string]any); m["role"] == "tool" {
			s, _ := m["content"].(string)
			out = append(out, s)
		}
	}
	return out
}

// editedURIs are the documents a workspace edit changes or creates, once each.
func editedURIs(edit protocol.WorkspaceEdit) []uri.URI {
	var out []uri.URI
	for _, dc := range edit.DocumentChanges {
		switch c := dc.(type) {
		case *protocol.TextDocumentEdit:
			out = append(out, c.TextDocument.URI)
		case *protocol.CreateFile:
			out = append(out, c.URI)
		}
	}
	slices.Sort(out)
	return slices.Compact(out) // a new file is created, then filled
}

var twoFolders = map[string]string{
	"api/main.go":    "package main\n\nfunc main() { serve() }\n",
	"api/marker.txt": "the api folder\n",
	"web/app.ts":     "export const app = serve();\n",
	"web/marker.txt": "the web folder\n",
}

func TestTwoFoldersReadSearchAndEditBoth(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("read_file", `{"path":"web/app.ts"}`), call("search", `{"pattern":"serve\\("}`)}},
		llmtest.Turn{Calls: []llmtest.Call{
			call("edit_file", `{"path":"api/main.go","old_string":"serve()","new_string":"listen()"}`),
			call("edit_file", `{"path":"web/app.ts","old_string":"serve()","new_string":"listen()"}`),
			call("write_file", `{"path":"web/new.ts","content":"export {};\n"}`),
		}},
		llmtest.Turn{Text: "Renamed serve to listen in both folders."},
	)
	f := newFixture(t, twoFolders, srv, nil)
	api, web := filepath.Join(f.root, "api"), filepath.Join(f.root, "web")
	f.editor.InitializeFolders([]any{api, web}, servertest.Caps{Annotations: true, Progress: true}, nil)
	for _, rel := range []string{"api/main.go", "web/app.ts"} {
		f.editor.Open(f.uri(rel), f.disk(rel))
	}
	res := f.ask(map[string]any{"prompt": "rename serve to listen everywhere"})
	f.editor.Wait("the proposal as an applyEdit", func() bool { return f.editor.EditCount() == 1 })
	if end := f.waitEnd(res.RunID); !strings.HasPrefix(end, "Completed: 3 file(s) changed") {
		t.Fatalf("progress end %q", end)
	}
	results := toolResults(srv)
	if len(results) != 5 || !strings.Contains(results[0], "export const app = serve();") ||
		!strings.Contains(results[1], "api/main.go:3: func main() { serve() }") || !strings.Contains(results[1], "web/app.ts:1: export const app = serve();") {
		t.Fatalf("tool results: %q", results)
	}
	if p := systemPrompt(srv.Requests()[0]); !strings.Contains(p, "- api/ is "+api+" (this request's root)") || !strings.Contains(p, "- web/ is "+web) {
		t.Errorf("the system prompt does not name the roots:\n%s", p)
	}
	edit := f.editor.Edits()[0].Edit
	want := []uri.URI{f.uri("api/main.go"), f.uri("web/app.ts"), f.uri("web/new.ts")}
	if got := editedURIs(edit); !slices.Equal(got, want) {
		t.Fatalf("edit URIs %q, want %q", got, want)
	}
	// The editor applies the edit it was sent, maybe after the progress ends.
	for rel, want := range map[string]string{"api/main.go": "listen()", "web/app.ts": "listen()"} {
		f.editor.Wait(rel+" edited", func() bool {
			b, _ := f.editor.Buffer(f.uri(rel))
			return strings.Contains(b.Text, want)
		})
	}
	if f.disk("web/app.ts") != twoFolders["web/app.ts"] {
		t.Fatal("disk was written")
	}
}

func TestARunAskedFromTheSecondFolderRunsThere(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("execute_command", `{"command":"cat marker.txt"}`)}},
		llmtest.Turn{Calls: []llmtest.Call{call("execute_command", `{"command":"cat marker.txt","cwd":"api"}`)}},
		llmtest.Turn{Text: "Both markers read."},
	)
	f := newFixture(t, twoFolders, srv, nil)
	api, web := filepath.Join(f.root, "api"), filepath.Join(f.root, "web")
	f.editor.InitializeFolders([]any{api, web}, servertest.Caps{Progress: true}, nil)
	u := f.uri("web/app.ts")
	f.editor.Open(u, f.disk("web/app.ts"))
	res := f.ask(map[string]any{"prompt": "which folder is this?", "uri": u, "wait": true})
	if res.State != "completed" {
		t.Fatalf("ask: %+v", res)
	}
	results := toolResults(srv)
	if len(results) != 2 || !strings.HasPrefix(results[0], "the web folder\n") || !strings.HasPrefix(results[1], "the api folder\n") {
		t.Fatalf("commands ran in %q; want web's by default, api's with cwd", results)
	}
	if task := llmtest.FirstUserText(srv.Requests()[0]); !strings.Contains(task, "File: web/app.ts") {
		t.Errorf("the task names the file without its root: %q", task)
	}
	p := systemPrompt(srv.Requests()[0])
	if !strings.Contains(p, "- web/ is "+web+" (this request's root)") || !strings.Contains(p, "execute_command runs shell commands in web/") {
		t.Errorf("the system prompt does not say the run starts in web:\n%s", p)
	}
}

func TestAFolderAddedIsUsedByTheNextRun(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("read_file", `{"path":"web/app.ts"}`), call("list_files", `{"depth":1}`)}},
		llmtest.Turn{Text: "read"},
	)
	f := newFixture(t, twoFolders, srv, nil)
	f.editor.InitializeFolders([]any{filepath.Join(f.root, "api")}, servertest.Caps{}, nil)
	f.editor.ChangeFolders([]uri.URI{uri.File(filepath.Join(f.root, "web"))}, nil)
	f.editor.Wait("the new roots logged", func() bool {
		return slices.ContainsFunc(f.editor.Logs(), func(l string) bool {
			return strings.Contains(l, "workspace roots: api (") && strings.Contains(l, "web (")
		})
	})
	res := f.ask(map[string]any{"prompt": "read the new folder", "wait": true})
	if res.State != "completed" {
		t.Fatalf("ask: %+v", res)
	}
	results := toolResults(srv)
	if len(results) != 2 || !strings.Contains(results[0], "export const app = serve();") || results[1] != "api/\nweb/\n" {
		t.Fatalf("tool results: %q", results)
	}
}

func TestAFolderRemovedIsRefused(t *testing.T) {
	files := map[string]string{"docs/README.md": "# docs\n"}
	for k, v := range twoFolders {
		files[k] = v
	}
	var webApp atomic.Value // web/app.ts's absolute path, known once the fixture is
	srv := llmtest.NewOpenAIResponder(t, func(body map[string]any) llmtest.Turn {
		if llmtest.CountRole(body, "tool") > 0 {
			return llmtest.Turn{Text: "web is gone"}
		}
		return llmtest.Turn{Calls: []llmtest.Call{
			call("read_file", `{"path":"web/app.ts"}`),
			call("read_file", `{"path":`+jsonString(webApp.Load().(string))+`}`),
		}}
	})
	f := newFixture(t, files, srv, nil)
	api, web, docs := filepath.Join(f.root, "api"), filepath.Join(f.root, "web"), filepath.Join(f.root, "docs")
	webApp.Store(filepath.Join(web, "app.ts"))
	f.editor.InitializeFolders([]any{api, web, docs}, servertest.Caps{}, nil)
	f.editor.ChangeFolders(nil, []uri.URI{uri.File(web)})
	res := f.ask(map[string]any{"prompt": "read web's app", "uri": f.uri("web/app.ts"), "wait": true})
	if res.State != "completed" {
		t.Fatalf("ask: %+v", res)
	}
	results := toolResults(srv)
	if len(results) != 2 {
		t.Fatalf("tool results: %q", results)
	}
	for _, r := range results {
		if !strings.Contains(r, "api/ ("+api+")") || !strings.Contains(r, "docs/ ("+docs+")") || strings.Contains(r, "serve()") {
			t.Errorf("a removed root's file was not refused with the roots named: %q", r)
		}
	}
	if !strings.Contains(results[0], `"web" names no root of the workspace`) || !strings.Contains(results[1], "outside the workspace") {
		t.Errorf("the refusals do not say why: %q", results)
	}
	if task := llmtest.FirstUserText(srv.Requests()[0]); !strings.Contains(task, "File: "+filepath.ToSlash(filepath.Join(web, "app.ts"))) {
		t.Errorf("a file of a removed folder is named as one outside the workspace: %q", task)
	}
	if p := systemPrompt(srv.Requests()[0]); !strings.Contains(p, "- api/ is "+api+" (this request's root)") || strings.Contains(p, "web/ is") {
		t.Errorf("the run did not start in the first folder left:\n%s", p)
	}
}

func TestTwoFoldersOfOneName(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("read_file", `{"path":"api~2/x.go"}`), call("list_files", `{}`), call("edit_file", `{"path":"api~2/x.go","old_string":"two","new_string":"deux"}`)}},
		llmtest.Turn{Text: "done"},
	)
	f := newFixture(t, map[string]string{"a/api/x.go": "package one\n", "b/api/x.go": "package two\n"}, srv, nil)
	one, two := filepath.Join(f.root, "a", "api"), filepath.Join(f.root, "b", "api")
	f.editor.InitializeFolders([]any{one, two}, servertest.Caps{}, nil)
	f.editor.Wait("the roots logged", func() bool {
		return slices.Contains(f.editor.Logs(), "agent-lsp: workspace roots: api ("+one+"), api~2 ("+two+")")
	})
	res := f.ask(map[string]any{"prompt": "read the second api", "wait": true})
	results := toolResults(srv)
	if len(results) != 3 || !strings.Contains(results[0], "package two") || results[1] != "api/\napi/x.go\napi~2/\napi~2/x.go\n" {
		t.Fatalf("tool results: %q", results)
	}
	if !strings.Contains(res.Diff, "--- a/api~2/x.go\n+++ b/api~2/x.go") {
		t.Fatalf("diff:\n%s", res.Diff)
	}
	var applied struct {
		Applied bool `json:"applied"`
	}
	f.editor.Open(uri.File(filepath.Join(two, "x.go")), "package two\n")
	if err := f.editor.Command(server.CommandApplyProposal, map[string]any{"id": res.ProposalID}, &applied); err != nil || !applied.Applied {
		t.Fatalf("apply: %+v %v", applied, err)
	}
	if got := editedURIs(f.editor.Edits()[0].Edit); !slices.Equal(got, []uri.URI{uri.File(filepath.Join(two, "x.go"))}) {
		t.Fatalf("edit URIs %q", got)
	}
}

// TestFoldersBadInput: a folder that is no local directory is left out
// with a warning, at initialize and later, and the capabilities say the
// server follows the folders.
func TestFoldersBadInput(t *testing.T) {
	f := newFixture(t, twoFolders, nil, nil)
	api := filepath.Join(f.root, "api")
	init := f.editor.InitializeFolders([]any{api, protocol.WorkspaceFolder{URI: "vscode-vfs://github/o/r", Name: "remote"}}, servertest.Caps{}, nil)
	wf := init.Capabilities.Workspace
	if wf == nil || wf.WorkspaceFolders == nil || wf.WorkspaceFolders.Supported == nil || !*wf.WorkspaceFolders.Supported ||
		wf.WorkspaceFolders.ChangeNotifications != protocol.ChangeNotifications(protocol.Boolean(true)) {
		t.Fatalf("workspace folder capabilities: %+v", wf)
	}
	f.editor.Wait("the remote folder's warning", func() bool {
		return slices.ContainsFunc(f.editor.Logs(), func(l string) bool {
			return strings.Contains(l, "workspace folder vscode-vfs://github/o/r left out") && strings.Contains(l, "not a local file URI")
		})
	})
	f.editor.ChangeFolders([]uri.URI{"untitled:Untitled-1", uri.File(filepath.Join(f.root, "missing"))}, nil)
	f.editor.Wait("the warnings", func() bool {
		m := strings.Join(f.editor.Messages(), "\n")
		return strings.Contains(m, "workspace folder untitled:Untitled-1 left out") && strings.Contains(m, "missing is not a directory")
	})
	f.editor.Wait("the roots logged", func() bool {
		return slices.Contains(f.editor.Logs(), "agent-lsp: workspace roots: api ("+api+")")
	})
}

// jsonString quotes s for a scripted call's arguments.
func jsonString(s string) string { return string(servertest.Raw(s)) }

// TestEachFolderHasItsOwnInstructionsNotesAndSettings: a run started from
// a file has that file's folder's AGENTS.md, notes and project settings.
func TestEachFolderHasItsOwnInstructionsNotesAndSettings(t *testing.T) {
	const note = "web builds with pnpm"
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{call("remember", `{"note":"`+note+`"}`)}},
		llmtest.Turn{Text: "noted"},
		llmtest.Turn{Text: "in api"},
		llmtest.Turn{Text: "in web"},
	)
	f := newFixture(t, map[string]string{
		"api/AGENTS.md": "API RULES: tabs.\n", "api/a.go": "package a\n",
		"web/AGENTS.md": "WEB RULES: spaces.\n", "web/w.ts": "export {};\n",
		"web/.agent-lsp.toml": "max_iterations = 7\n", // a project may lower a limit untrusted
	}, srv, nil)
	f.editor.InitializeFolders([]any{filepath.Join(f.root, "api"), filepath.Join(f.root, "web")}, servertest.Caps{Progress: true}, nil)
	var first struct {
		askResult
		Notes []string `json:"notes"`
	}
	if err := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "remember the build", "uri": f.uri("web/w.ts"), "wait": true}, &first); err != nil || !slices.Equal(first.Notes, []string{note}) {
		t.Fatalf("%v %+v", err, first)
	}
	if err := f.editor.Command(server.CommandKeepNotes, map[string]any{"id": first.RunID}, nil); err != nil {
		t.Fatal(err)
	}
	inAPI := f.ask(map[string]any{"prompt": "and api?", "uri": f.uri("api/a.go"), "wait": true})
	inWeb := f.ask(map[string]any{"prompt": "and web?", "uri": f.uri("web/w.ts"), "wait": true})
	reqs := srv.Requests()
	if p := systemPrompt(reqs[0]); !strings.Contains(p, "WEB RULES") || strings.Contains(p, "API RULES") {
		t.Errorf("a run from web lacks web's AGENTS.md, alone:\n%s", p)
	}
	if p := systemPrompt(reqs[2]); !strings.Contains(p, "API RULES") || strings.Contains(p, "WEB RULES") || strings.Contains(p, note) {
		t.Errorf("a run from api has web's instructions or notes:\n%s", p)
	}
	if p := systemPrompt(reqs[3]); !strings.Contains(p, "WEB RULES") || !strings.Contains(p, note) {
		t.Errorf("web's kept note is not in its next run:\n%s", p)
	}
	iterations := func(runID string) string {
		for _, p := range f.editor.Progress() {
			if p.Token == "agent-lsp/"+runID && strings.HasPrefix(p.Message, "Iteration 1/") {
				return p.Message
			}
		}
		return ""
	}
	f.editor.Wait("the runs' progress", func() bool {
		return iterations(first.RunID) != "" && iterations(inWeb.RunID) != "" && iterations(inAPI.RunID) != ""
	})
	if !strings.HasPrefix(iterations(first.RunID), "Iteration 1/7") || !strings.HasPrefix(iterations(inWeb.RunID), "Iteration 1/7") ||
		!strings.HasPrefix(iterations(inAPI.RunID), "Iteration 1/10") {
		t.Errorf("project settings are not the run's folder's: web %q %q, api %q", iterations(first.RunID), iterations(inWeb.RunID), iterations(inAPI.RunID))
	}
}

// TestAFolderGoneFromDiskKeepsNoRunFromStarting: a folder deleted on disk
// but still open in the editor is left out of the next run, which says so.
func TestAFolderGoneFromDiskKeepsNoRunFromStarting(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Calls: []llmtest.Call{call("list_files", `{}`)}}, llmtest.Turn{Text: "only api"})
	f := newFixture(t, twoFolders, srv, nil)
	api, web := filepath.Join(f.root, "api"), filepath.Join(f.root, "web")
	f.editor.InitializeFolders([]any{api, web}, servertest.Caps{}, nil)
	if err := os.RemoveAll(web); err != nil {
		t.Fatal(err)
	}
	if res := f.ask(map[string]any{"prompt": "list", "wait": true}); res.State != "completed" {
		t.Fatalf("ask: %+v", res)
	}
	if results := toolResults(srv); len(results) != 1 || results[0] != "main.go\nmarker.txt\n" {
		t.Errorf("tool results: %q", results)
	}
	if !slices.ContainsFunc(f.editor.Logs(), func(l string) bool {
		return strings.Contains(l, "workspace folder web ("+web+") is left out of this run")
	}) {
		t.Errorf("the run does not say it left web out:\n%s", strings.Join(f.editor.Logs(), "\n"))
	}
}
