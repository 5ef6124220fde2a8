package documents

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// typist types into a document through documents.change, as an editor's
// didChange does, one partial change at a time.
type typist struct {
	t    testing.TB
	docs *Store
	u    uri.URI
	v    int32
}

func newTypist(t testing.TB, text string) *typist {
	docs := New()
	u := uri.File("/tmp/agent-lsp-history/a.go")
	if err := docs.Open(protocol.TextDocumentItem{URI: u, LanguageID: "go", Version: 1, Text: text}); err != nil {
		t.Fatal(err)
	}
	return &typist{t: t, docs: docs, u: u, v: 1}
}

// replace replaces the first occurrence of old after offset from with new.
func (ty *typist) change(start, end protocol.Position, text string) {
	ty.v++
	params := &protocol.DidChangeTextDocumentParams{ContentChanges: []protocol.TextDocumentContentChangeEvent{
		&protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: start, End: end}, Text: text}}}
	params.TextDocument.URI, params.TextDocument.Version = ty.u, ty.v
	if _, err := ty.docs.Change(params, UTF16); err != nil {
		ty.t.Fatal(err)
	}
}

// keys types s at (line, char) one character a change.
func (ty *typist) keys(line, char uint32, s string) {
	for _, r := range s {
		p := protocol.Position{Line: line, Character: char}
		ty.change(p, p, string(r))
		char++
	}
}

// backspace deletes n characters before (line, char), one a change.
func (ty *typist) backspace(line, char uint32, n int) {
	for range n {
		ty.change(protocol.Position{Line: line, Character: char - 1}, protocol.Position{Line: line, Character: char}, "")
		char--
	}
}

func (ty *typist) hunks() string {
	var out string
	ty.docs.Read(ty.u, func(doc Document, h History) { out = h.Hunks(doc.Text) })
	return out
}

func TestKeystrokesOnALineAreOneEdit(t *testing.T) {
	ty := newTypist(t, "package main\n\nfunc greet(name string) string {\n\treturn \"hi \" + name\n}\n")
	// Rename the parameter as a person does: delete it, type the new name.
	ty.backspace(2, 15, 4)
	ty.keys(2, 11, "fullName")
	want := "@@ -3,1 +3,1 @@\n-func greet(name string) string {\n+func greet(fullName string) string {\n"
	if got := ty.hunks(); got != want {
		t.Fatalf("hunks:\n%s\nwant:\n%s", got, want)
	}
	// An edit far away is a second one; the first keeps the line it had
	// then, though the second added lines above it.
	p := protocol.Position{Line: 0, Character: 12}
	ty.change(p, p, "\n\n// Greeting.")
	got := ty.hunks()
	if !strings.HasPrefix(got, want+"@@ -1,1 +1,3 @@\n-package main\n+package main\n+\n+// Greeting.\n") {
		t.Fatalf("hunks after a second edit:\n%s", got)
	}
}

func TestTypedAndDeletedAgainLeavesNoEdit(t *testing.T) {
	ty := newTypist(t, "a\nb\n")
	ty.keys(1, 1, "xyz")
	ty.backspace(1, 4, 3)
	if got := ty.hunks(); got != "" {
		t.Fatalf("hunks %q", got)
	}
}

func TestWholeDocumentChangeRecordsWhatChanged(t *testing.T) {
	ty := newTypist(t, "one\ntwo\nthree\n")
	ty.v++
	params := &protocol.DidChangeTextDocumentParams{ContentChanges: []protocol.TextDocumentContentChangeEvent{
		&protocol.TextDocumentContentChangeWholeDocument{Text: "one\nTWO\nthree\n"}}}
	params.TextDocument.URI, params.TextDocument.Version = ty.u, ty.v
	if _, err := ty.docs.Change(params, UTF16); err != nil {
		t.Fatal(err)
	}
	if got, want := ty.hunks(), "@@ -2,1 +2,1 @@\n-two\n+TWO\n"; got != want {
		t.Fatalf("hunks %q, want %q", got, want)
	}
}

func TestAcceptedEditIsNotContinued(t *testing.T) {
	ty := newTypist(t, "x := 1\n")
	ty.keys(0, 6, "0")
	// Told at the version it was suggested for: the change is the last one.
	if ok, newly := ty.docs.Accepted(ty.u, ty.v-1); !ok || !newly {
		t.Fatalf("accepted: %v %v", ok, newly)
	}
	ty.keys(0, 7, "0")
	got := ty.hunks()
	if strings.Count(got, "@@ -") != 2 || !strings.HasPrefix(got, "(a suggestion the user accepted)\n@@ -1,1 +1,1 @@\n-x := 1\n+x := 10\n") {
		t.Fatalf("hunks:\n%s", got)
	}
}

func TestHistoryIsBounded(t *testing.T) {
	ty := newTypist(t, strings.Repeat("line\n", 2000))
	for i := range 100 {
		ty.keys(uint32(i*17%2000), 0, fmt.Sprintf("edit %d ", i))
	}
	doc := ty.docs.byPath[ty.docs.OpenBuffers()[0]]
	if n := len(doc.history.edits); n != historyEdits {
		t.Fatalf("%d edits kept", n)
	}
	if got := ty.hunks(); !strings.Contains(got, "+edit 99 line") || strings.Contains(got, "edit 83 ") {
		t.Fatalf("not the newest edits:\n%s", got)
	}
	// A paste too large to keep is kept as its size.
	ty.change(protocol.Position{Line: 3}, protocol.Position{Line: 3}, strings.Repeat("y", historyBytes))
	if got := ty.hunks(); !strings.Contains(got, "too large to show") || doc.history.size() > 64<<10 {
		t.Fatalf("size %d, hunks:\n%s", doc.history.size(), got)
	}
}

// BenchmarkEditHistoryMemory types 10,000 keystrokes (runs of a word at
// places spread over a 1 MB file) and reports the history's size after
// 1,000 and after 10,000: it stays under 64 KB and flat.
func BenchmarkEditHistoryMemory(b *testing.B) {
	var at1k, at10k int
	for b.Loop() {
		ty := newTypist(b, strings.Repeat(strings.Repeat("x", 99)+"\n", 10_000))
		doc := ty.docs.byPath[ty.docs.OpenBuffers()[0]]
		for i := range 10_000 / 8 {
			ty.keys(uint32(i*7919%10_000), 10, "edited ")
			ty.backspace(uint32(i*7919%10_000), 17, 1)
			if i == 1_000/8 {
				at1k = doc.history.size()
			}
		}
		at10k = doc.history.size()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(at1k), "bytes-after-1k")
	b.ReportMetric(float64(at10k), "bytes-after-10k")
}
