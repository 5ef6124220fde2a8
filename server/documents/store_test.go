package documents

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Random incremental edits applied in place must give the same text as
// applying them to a plain string.
func TestInPlaceEditsMatchStringEdits(t *testing.T) {
	docs := New()
	u := uri.File("/tmp/agent-lsp-test/doc.txt")
	text := "first line\nsecond 😀 line\r\nthird\n"
	if err := docs.Open(protocol.TextDocumentItem{URI: u, Version: 1, Text: text}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	inserts := []string{"", "x", "ab\n", "🎉", "\r\n", "long insertion with\nseveral\nlines\n"}
	for i := range 2000 {
		start := rng.IntN(len(text) + 1)
		end := start + rng.IntN(min(8, len(text)-start)+1)
		for start > 0 && start < len(text) && !utf8Start(text[start]) {
			start--
		}
		for end < len(text) && !utf8Start(text[end]) {
			end++
		}
		if end < start {
			end = start
		}
		ins := inserts[rng.IntN(len(inserts))]
		change := &protocol.DidChangeTextDocumentParams{ContentChanges: []protocol.TextDocumentContentChangeEvent{
			&protocol.TextDocumentContentChangePartial{Range: UTF16.SpanRange(text, start, end), Text: ins}}}
		change.TextDocument.URI = u
		change.TextDocument.Version = int32(i + 2)
		before := UTF16.SpanRange(text, start, end)
		if _, err := docs.Change(change, UTF16); err != nil {
			t.Fatal(err)
		}
		// The range resolves to start/end unless a CR/LF pair was split, which
		// an editor never sends; skip checking those.
		if UTF16.Offset(text, before.Start) != start || UTF16.Offset(text, before.End) != end {
			got, _, _ := docs.Buffer(mustPath(t, u))
			text = got
			continue
		}
		text = text[:start] + ins + text[end:]
		got, version, _ := docs.Buffer(mustPath(t, u))
		if got != text || version != int32(i+2) {
			t.Fatalf("edit %d: got %q, want %q", i, got, text)
		}
	}
	if !strings.Contains(text, "\n") {
		t.Fatal("the test lost its lines")
	}
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func mustPath(t *testing.T, u uri.URI) string {
	p, err := PathOf(u)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A didChange whose second change has an invalid range applies none of its
// changes: the text, the version and the edit history stay as they were.
func TestADidChangeWithAnInvalidRangeChangesNothing(t *testing.T) {
	docs := New()
	u := uri.File("/tmp/agent-lsp-test/doc.txt")
	if err := docs.Open(protocol.TextDocumentItem{URI: u, Version: 1, Text: "hello\nworld\n"}); err != nil {
		t.Fatal(err)
	}
	at := func(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }
	params := &protocol.DidChangeTextDocumentParams{ContentChanges: []protocol.TextDocumentContentChangeEvent{
		&protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: at(0, 0), End: at(0, 0)}, Text: "X"},
		&protocol.TextDocumentContentChangeWholeDocument{Text: "all new\n"},
		&protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: at(0, 3), End: at(0, 3)}, Text: "Y"},
		&protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: at(0, 4), End: at(0, 1)}, Text: "Z"},
	}}
	params.TextDocument.URI, params.TextDocument.Version = u, 2
	if _, err := docs.Change(params, UTF16); err == nil {
		t.Fatal("an end before its start was taken")
	}
	var text string
	var version int32
	var edits int
	docs.read(u, func(doc *document) {
		text, version, edits = strings.Clone(doc.view().Text), doc.version, len(doc.history.edits)
	})
	if text != "hello\nworld\n" || version != 1 || edits != 0 {
		t.Fatalf("after a refused didChange: %q at version %d, %d edits in the history", text, version, edits)
	}
	if doc, _ := docs.Get(u); doc.Text != "hello\nworld\n" {
		t.Fatalf("snapshot %q", doc.Text)
	}
}

// A watcher hears of each change applied, by the document's path; not of
// one refused, nor after it stopped.
func TestWatchersHearOfAppliedChanges(t *testing.T) {
	docs := New()
	u := uri.File(t.TempDir() + "/doc.txt")
	if err := docs.Open(protocol.TextDocumentItem{URI: u, Version: 1, Text: "one\n"}); err != nil {
		t.Fatal(err)
	}
	var heard []string
	stop := docs.WatchBuffers(func(p string) { heard = append(heard, p) })
	change := func(r protocol.Range, text string) error {
		c := &protocol.DidChangeTextDocumentParams{ContentChanges: []protocol.TextDocumentContentChangeEvent{
			&protocol.TextDocumentContentChangePartial{Range: r, Text: text}}}
		c.TextDocument.URI = u
		_, err := docs.Change(c, UTF16)
		return err
	}
	if err := change(protocol.Range{Start: protocol.Position{Line: 0, Character: 3}, End: protocol.Position{Line: 0, Character: 3}}, "!"); err != nil {
		t.Fatal(err)
	}
	if err := change(protocol.Range{Start: protocol.Position{Line: 0, Character: 2}, End: protocol.Position{Line: 0, Character: 1}}, "x"); err == nil {
		t.Fatal("a range ending before its start was applied")
	}
	stop()
	if err := change(protocol.Range{}, "0"); err != nil {
		t.Fatal(err)
	}
	if want := mustPath(t, u); len(heard) != 1 || heard[0] != want {
		t.Errorf("heard %q, want [%s]", heard, want)
	}
}

// typing is a burst of keys, each a didChange inserting one character at
// the start of the line (the cursor kept there), versions 1, 2, ….
func typing(u uri.URI, keys string) []*protocol.DidChangeTextDocumentParams {
	var out []*protocol.DidChangeTextDocumentParams
	for i, r := range keys {
		at := protocol.Position{}
		c := &protocol.DidChangeTextDocumentParams{ContentChanges: []protocol.TextDocumentContentChangeEvent{
			&protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: at, End: at}, Text: string(r)}}}
		c.TextDocument.URI, c.TextDocument.Version = u, int32(i+1)
		out = append(out, c)
	}
	return out
}

// burstOrder is the order in which Helix 25.01 was seen to send versions
// 1…36 of a burst of keys.
var burstOrder = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 27, 18, 19, 20, 28, 21, 22, 23, 24, 29, 25, 26, 30, 31, 34, 32, 33, 35, 36}

// seeReordering has docs see a change come late on the connection, in a
// document of its own.
func seeReordering(t *testing.T, docs *Store) {
	t.Helper()
	u := uri.File("/tmp/agent-lsp-test/other.py")
	if err := docs.Open(protocol.TextDocumentItem{URI: u, Version: 0, Text: "\n"}); err != nil {
		t.Fatal(err)
	}
	keys := typing(u, "ab")
	for _, c := range []*protocol.DidChangeTextDocumentParams{keys[1], keys[0]} {
		if _, err := docs.Change(c, UTF16); err != nil {
			t.Fatal(err)
		}
	}
	if doc, _ := docs.Get(u); doc.Text != "ba\n" {
		t.Fatalf("the late change was not put in order: %q", doc.Text)
	}
}

// TestTheRecordedBurstComesOutAsTyped: Helix 25.01 sends a burst's
// didChange interleaved (…, 17, 27, 18, …). For a client that may reorder,
// the text is what was typed: the first time on a connection (the change
// that skipped ahead was applied, and is taken back) and after (held until
// the versions before it came). Without (the default) they apply as they
// come, and the text is scrambled.
func TestTheRecordedBurstComesOutAsTyped(t *testing.T) {
	const keys = "abcdefghijklmnopqrstuvwxyz0123456789"
	for _, c := range []struct {
		name            string
		mayReorder, arm bool
	}{{"first on the connection", true, false}, {"once reordering was seen", true, true}, {"a client that does not reorder", false, false}} {
		t.Run(c.name, func(t *testing.T) {
			docs := New()
			docs.ClientMayReorder(c.mayReorder)
			if c.arm {
				seeReordering(t, docs)
			}
			u := uri.File("/tmp/agent-lsp-test/burst.py")
			if err := docs.Open(protocol.TextDocumentItem{URI: u, Version: 0, Text: "\n"}); err != nil {
				t.Fatal(err)
			}
			changes := typing(u, keys)
			for _, v := range burstOrder {
				if _, err := docs.Change(changes[v-1], UTF16); err != nil {
					t.Fatalf("version %d: %v", v, err)
				}
			}
			got, version, _ := docs.Buffer(mustPath(t, u))
			typed := []rune(keys)
			slices.Reverse(typed)
			want := string(typed) + "\n"
			if c.mayReorder && (got != want || version != 36) {
				t.Errorf("%q at version %d, want %q at 36", got, version, want)
			}
			if !c.mayReorder && got == want {
				t.Errorf("the control applied out-of-order changes in order: the test shows nothing")
			}
		})
	}
}

// TestASkippedVersionWaitsForNothing: Helix skips a version after a
// completion preview. Until a change came late on the connection, the
// change after the skip, and the typing after it, are read at once; the
// skipped version coming after reorderWindow is dropped, never applied to
// the later text, and the version never goes back.
func TestASkippedVersionWaitsForNothing(t *testing.T) {
	docs := New()
	docs.ClientMayReorder(true)
	u := uri.File("/tmp/agent-lsp-test/skip.py")
	if err := docs.Open(protocol.TextDocumentItem{URI: u, Version: 0, Text: "\n"}); err != nil {
		t.Fatal(err)
	}
	changes := typing(u, "abcd")
	for i, v := range []int{1, 3, 4} {
		if _, err := docs.Change(changes[v-1], UTF16); err != nil {
			t.Fatal(err)
		}
		want := []string{"a\n", "ca\n", "dca\n"}[i]
		if doc, _ := docs.Get(u); doc.Text != want || doc.Version != int32(v) {
			t.Fatalf("right after version %d: %q at %d, want %q", v, doc.Text, doc.Version, want)
		}
	}
	time.Sleep(2 * reorderWindow) // the skipped version is late past putting in order
	if _, err := docs.Change(changes[1], UTF16); err == nil || !strings.Contains(err.Error(), "version 2 came after version 4 was applied; dropped") {
		t.Fatalf("the late version: %v", err)
	}
	if doc, _ := docs.Get(u); doc.Text != "dca\n" || doc.Version != 4 {
		t.Fatalf("after the late version: %q at %d", doc.Text, doc.Version)
	}
}

// TestAHeldChangeWhoseVersionNeverComes: once a change came late on the
// connection, a change that skips ahead waits for the versions before it
// for reorderWindow, never for good; meanwhile readers see the last
// version in order. A missing version that comes after is dropped.
func TestAHeldChangeWhoseVersionNeverComes(t *testing.T) {
	docs := New()
	docs.ClientMayReorder(true)
	seeReordering(t, docs)
	u := uri.File("/tmp/agent-lsp-test/skip.py")
	if err := docs.Open(protocol.TextDocumentItem{URI: u, Version: 0, Text: "\n"}); err != nil {
		t.Fatal(err)
	}
	changes := typing(u, "abc")
	changed := make(chan string, 10)
	defer docs.WatchBuffers(func(p string) { changed <- p })()
	docs.Change(changes[0], UTF16)
	<-changed
	docs.Change(changes[2], UTF16) // version 3, as if 2 were skipped
	if doc, _ := docs.Get(u); doc.Text != "a\n" || doc.Version != 1 {
		t.Errorf("while version 3 waits for 2: %q at %d", doc.Text, doc.Version)
	}
	select {
	case p := <-changed:
		if p != mustPath(t, u) {
			t.Errorf("the watcher was told of %s", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the held change was never applied")
	}
	if doc, _ := docs.Get(u); doc.Text != "ca\n" || doc.Version != 3 {
		t.Errorf("after the hold: %q at %d", doc.Text, doc.Version)
	}
	if _, err := docs.Change(changes[1], UTF16); err == nil {
		t.Error("version 2, after 3 was applied, was not refused")
	}
	if doc, _ := docs.Get(u); doc.Text != "ca\n" || doc.Version != 3 {
		t.Errorf("after the late version 2: %q at %d", doc.Text, doc.Version)
	}
	// Closed while a change is held: the change goes with it.
	docs.Change(typing(u, "xxxxx")[4], UTF16)
	docs.Close(u)
	select {
	case p := <-changed:
		t.Errorf("a closed document's held change was applied (%s)", p)
	case <-time.After(4 * reorderWindow):
	}
}
