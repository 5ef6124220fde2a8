package langserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// tool is the session's language tool of that name.
func tool(t testing.TB, s *langserver.Session, name string) tools.Tool {
	t.Helper()
	for _, tl := range s.Tools() {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// opened are the versions the fake was sent of the document named suffix
// (didOpen and didChange), in order.
func opened(f *fakeServer, suffix string) []int32 {
	var out []int32
	for _, m := range f.messages() {
		if m.Method != "textDocument/didOpen" && m.Method != "textDocument/didChange" {
			continue
		}
		var d struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version int32  `json:"version"`
			} `json:"textDocument"`
		}
		_ = json.Unmarshal(m.Params, &d)
		if strings.HasSuffix(d.TextDocument.URI, suffix) {
			out = append(out, d.TextDocument.Version)
		}
	}
	return out
}

// TestALateAnswerIsNeverTakenForTheCurrentText: on a slow shared server
// (it pushes a text's diagnostics 400 ms after it), one run opens a file
// it staged broken (to find a declaration, which waits for no
// diagnostics) and ends; a moment later another run opens the same file
// as it is on disk, to judge its own edit against it. The first run's
// late push must not pass for the second run's baseline, or the second
// run's own breakage would be called clean: versions of a path never
// repeat in a server's life.
func TestALateAnswerIsNeverTakenForTheCurrentText(t *testing.T) {
	f := &fakeServer{pushAfter: 400 * time.Millisecond}
	sA, wsA, m := fakeSession(t, f, map[string]string{"a.fake": "Thing\n"})
	if _, err := wsA.Stage("a.fake", "Thing\nBROKEN by the first run\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := tool(t, sA, "definition").Execute(context.Background(), []byte(`{"symbol":"Thing","path":"a.fake"}`)); err != nil {
		t.Fatal(err)
	}
	sA.Close()
	time.Sleep(250 * time.Millisecond) // the next run starts a moment later (past the client's 150 ms settle)

	wsB, err := tools.NewWorkspace(wsA.Root(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer wsB.Close()
	sB := langserver.NewSession(m, wsB, plainFake)
	defer sB.Close()
	r := edit(t, sB, wsB, "a.fake", "Thing\nBROKEN by the second run\n")
	if len(r.New) != 1 || !strings.Contains(r.Text(), "a.fake:2:1: BROKEN here") {
		t.Errorf("the second run's own breakage: %s", r.Text())
	}
	versions := opened(f, "/a.fake")
	if !slices.IsSorted(versions) || len(slices.Compact(slices.Clone(versions))) != len(versions) {
		t.Errorf("versions sent of a.fake over the server's life repeat: %v", versions)
	}
}

// TestADocumentReachesARelocatedServerByteExact: a server that sees the
// workspace at another folder (a run-private one below level full) gets
// URIs naming that folder, but a document whose text names the
// workspace's own URI reaches it as it is, and what it says comes back
// at the right column, under the workspace's name.
func TestADocumentReachesARelocatedServerByteExact(t *testing.T) {
	f := &fakeServer{}
	root := toolstest.WriteTree(t, map[string]string{"a.fake": "ok\n"})
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	copyDir := "/copy-of" + root
	start := func(ctx context.Context, c langserver.Command) (langserver.Process, error) {
		p, err := f.start(ctx, c)
		return langserver.Relocated(p, c.Root, copyDir), err
	}
	m := langserver.NewManager(langserver.Options{Start: start, Timeout: 2 * time.Second, LookPath: func(string) (string, error) { return "/fake", nil }})
	defer m.Close()
	s := langserver.NewSession(m, ws, plainFake)
	defer s.Close()
	text := fmt.Sprintf("// fixture: %q is the file; it is BROKEN\n", "file://"+root+"/a.fake")
	r := edit(t, s, ws, "a.fake", text)
	want := fmt.Sprintf("a.fake:1:%d: BROKEN here", strings.Index(text, "BROKEN")+1)
	if !strings.Contains(r.Text(), want) {
		t.Errorf("want %q in: %s", want, r.Text())
	}
	var got []string
	for _, msg := range f.messages() {
		var d struct {
			TextDocument struct {
				URI  string `json:"uri"`
				Text string `json:"text"`
			} `json:"textDocument"`
			ContentChanges []struct {
				Text string `json:"text"`
			} `json:"contentChanges"`
		}
		_ = json.Unmarshal(msg.Params, &d)
		switch msg.Method {
		case "textDocument/didOpen":
			got = append(got, d.TextDocument.Text)
		case "textDocument/didChange":
			got = append(got, d.ContentChanges[0].Text)
		}
		if d.TextDocument.URI != "" && !strings.HasPrefix(d.TextDocument.URI, "file://"+copyDir+"/") {
			t.Errorf("%s named %s, not the server's folder", msg.Method, d.TextDocument.URI)
		}
	}
	if !slices.Contains(got, text) {
		t.Errorf("the server never got the document as it is:\n got %q\nwant %q", got, text)
	}
}

// TestAServerEditGoesToTheRunThatHoldsTheServer: two runs share a server;
// the one that acquired it first asks a rename the server answers by
// editing through workspace/applyEdit: the edit is staged in that run's
// proposal, not the other's, even after the other ended.
func TestAServerEditGoesToTheRunThatHoldsTheServer(t *testing.T) {
	f := &fakeServer{editOnRename: true}
	sA, wsA, m := fakeSession(t, f, map[string]string{"a.fake": "Thing\n", "b.fake": "Other\n"})
	wsB, err := tools.NewWorkspace(wsA.Root(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer wsB.Close()
	edit(t, sA, wsA, "b.fake", "Other\nmore\n")
	sB := langserver.NewSession(m, wsB, plainFake)
	edit(t, sB, wsB, "b.fake", "Other\nelse\n")
	sB.Close() // the run that acquired the server last ends first

	res, err := tool(t, sA, "rename").Execute(context.Background(), []byte(`{"symbol":"Thing","path":"a.fake","new_name":"Stuff"}`))
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := wsA.Read("a.fake"); a.Text != "server edit Thing\n" {
		t.Errorf("the run that asked has a.fake %q (rename: %s)", a.Text, res.Text)
	}
	if b, _ := wsB.Read("a.fake"); b.Text != "Thing\n" {
		t.Errorf("the other run got the server's edit: %q", b.Text)
	}
}

// TestAGivenUpRequestIsCancelledAtTheServer: a references request whose
// run is cancelled, or that times out, is cancelled at the server
// ($/cancelRequest with its id), so that the server stops working on it.
func TestAGivenUpRequestIsCancelledAtTheServer(t *testing.T) {
	for _, how := range []string{"cancelled", "timed out"} {
		t.Run(how, func(t *testing.T) {
			f := &fakeServer{blockReferences: true, timeout: 2 * time.Second}
			if how == "timed out" {
				f.timeout = 300 * time.Millisecond
			}
			s, _, _ := fakeSession(t, f, map[string]string{"a.fake": "Thing\n"})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan string, 1)
			go func() {
				res, _ := tool(t, s, "references").Execute(ctx, []byte(`{"symbol":"Thing","path":"a.fake"}`))
				done <- res.Text
			}()
			var id string
			toolstest.Poll(t, "the references request", func() bool {
				for _, m := range f.messages() {
					if m.Method == "textDocument/references" {
						id = m.ID
					}
				}
				return id != ""
			})
			if how == "cancelled" {
				cancel()
			}
			<-done
			toolstest.Poll(t, "$/cancelRequest of "+id, func() bool {
				for _, m := range f.messages() {
					var p struct {
						ID json.RawMessage `json:"id"`
					}
					_ = json.Unmarshal(m.Params, &p)
					if m.Method == "$/cancelRequest" && string(p.ID) == id {
						return true
					}
				}
				return false
			})
		})
	}
}

// sentTypes are the protocol's params types of what a client sends.
var sentTypes = map[string]func() any{
	"initialize":                       func() any { return new(protocol.InitializeParams) },
	"initialized":                      func() any { return new(protocol.InitializedParams) },
	"workspace/didChangeConfiguration": func() any { return new(protocol.DidChangeConfigurationParams) },
	"textDocument/didOpen":             func() any { return new(protocol.DidOpenTextDocumentParams) },
	"textDocument/didChange":           func() any { return new(protocol.DidChangeTextDocumentParams) },
	"textDocument/didClose":            func() any { return new(protocol.DidCloseTextDocumentParams) },
	"textDocument/diagnostic":          func() any { return new(protocol.DocumentDiagnosticParams) },
	"textDocument/definition":          func() any { return new(protocol.DefinitionParams) },
	"textDocument/references":          func() any { return new(protocol.ReferenceParams) },
	"textDocument/documentSymbol":      func() any { return new(protocol.DocumentSymbolParams) },
	"textDocument/rename":              func() any { return new(protocol.RenameParams) },
	"workspace/symbol":                 func() any { return new(protocol.WorkspaceSymbolParams) },
	"workspace/executeCommand":         func() any { return new(protocol.ExecuteCommandParams) },
	"$/cancelRequest":                  func() any { return new(protocol.CancelParams) },
}

// TestWhatIsSentIsTheProtocolsTypes: every message a run sends a server
// decodes as the protocol's type for its method and encodes back to the
// same JSON: no key the server would not know (a misspelt one is dropped
// by the round trip), no field of the wrong shape.
func TestWhatIsSentIsTheProtocolsTypes(t *testing.T) {
	f := &fakeServer{pull: true, blockReferences: true, timeout: 300 * time.Millisecond}
	s, ws, _ := fakeSession(t, f, map[string]string{"a.fake": "Thing\n"})
	edit(t, s, ws, "a.fake", "Thing\nBROKEN\n")
	ctx := context.Background()
	for _, call := range []struct{ name, args string }{
		{"definition", `{"symbol":"Thing","path":"a.fake"}`},
		{"references", `{"symbol":"Thing","path":"a.fake"}`},
		{"symbols", `{"path":"a.fake"}`},
		{"symbols", `{"query":"Thing"}`},
		{"rename", `{"symbol":"Thing","path":"a.fake","new_name":"Stuff"}`},
	} {
		if _, err := tool(t, s, call.name).Execute(ctx, []byte(call.args)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	seen := map[string]bool{}
	for _, m := range f.messages() {
		if m.Method == "shutdown" || m.Method == "exit" {
			continue
		}
		newParams, ok := sentTypes[m.Method]
		if !ok {
			t.Errorf("sent %s, which this test does not know the type of", m.Method)
			continue
		}
		seen[m.Method] = true
		typed := newParams()
		if err := protocol.Unmarshal(m.Params, typed); err != nil {
			t.Errorf("%s: %v: %s", m.Method, err, m.Params)
			continue
		}
		again, err := protocol.Marshal(typed)
		if err != nil {
			t.Fatal(err)
		}
		var sent, back any
		_ = json.Unmarshal(m.Params, &sent)
		_ = json.Unmarshal(again, &back)
		if !reflect.DeepEqual(sent, back) {
			t.Errorf("%s does not round-trip as %T:\n sent %s\n type %s", m.Method, typed, m.Params, again)
		}
	}
	for _, method := range []string{"initialize", "textDocument/didOpen", "textDocument/didChange", "textDocument/references", "$/cancelRequest", "textDocument/rename"} {
		if !seen[method] {
			t.Errorf("never sent %s", method)
		}
	}
}

// TestAFileTheServerDidNotLoadIsNotKnown: a server that loaded no package
// holding the file (gopls.packages answers none) says no error of it;
// that silence is "not known", never "no new errors".
func TestAFileTheServerDidNotLoadIsNotKnown(t *testing.T) {
	f := &fakeServer{unloaded: true}
	root := toolstest.WriteTree(t, map[string]string{"a.fake": "ok\n"})
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	m := langserver.NewManager(langserver.Options{Start: f.start, Timeout: 2 * time.Second, LookPath: func(string) (string, error) { return "/fake", nil }})
	defer m.Close()
	servers := slices.Clone(plainFake)
	servers[0].Loaded = langserver.LoadedByGoplsPackages
	s := langserver.NewSession(m, ws, servers)
	defer s.Close()
	r := edit(t, s, ws, "a.fake", "ok, changed\n")
	if r.Verdict() != langserver.NotKnown || !strings.Contains(r.Text(), "not known for a.fake: gopls loaded no package holding it") {
		t.Errorf("the verdict: %s", r.Text())
	}
	if r = edit(t, s, ws, "a.fake", "BROKEN\n"); r.Verdict() != langserver.NewErrors || !strings.Contains(r.Text(), "not known beyond these for a.fake") {
		t.Errorf("what it shows is still so, and its silence not proof: %s", r.Text())
	}
}

// TestAServerStillAtWorkPastTheWaitIsNotKnown: references asked while the
// server is still indexing past the wait find part of the project: the
// files that use what the edit changed are "not known".
func TestAServerStillAtWorkPastTheWaitIsNotKnown(t *testing.T) {
	f := &fakeServer{busy: true, timeout: 300 * time.Millisecond}
	s, ws, _ := fakeSession(t, f, map[string]string{"a.fake": "Thing\n"})
	r := edit(t, s, ws, "a.fake", "Thing2\n")
	if r.Verdict() != langserver.NotKnown || !strings.Contains(r.Text(), "not known for the files that use what a.fake's edit changed: fake was still at work") {
		t.Errorf("the verdict: %s", r.Text())
	}
}

// TestOddDiagnosticsAreReadLeniently: what real servers send that a strict
// reader refuses — a code as a string, a name twice, invalid UTF-8, a
// message as markup — is read, not dropped.
func TestOddDiagnosticsAreReadLeniently(t *testing.T) {
	s, ws, _ := fakeSession(t, &fakeServer{oddShapes: true}, map[string]string{})
	text := edit(t, s, ws, "new.fake", "BROKEN\n").Text()
	for _, want := range []string{"new.fake:1:1: bad byte \ufffd here", "new.fake:1:1: in **markup**"} {
		if !strings.Contains(text, want) {
			t.Errorf("want %q in:\n%s", want, text)
		}
	}
}
