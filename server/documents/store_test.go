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

// TestChangesSentOutOfOrderAreAppliedInVersionOrder: Helix 25.01 sends a
// burst's didChange interleaved (…, 17, 27, 18, …); held where versions
// are numbered one by one, the text is what was typed. Without holding
// (the default: Neovim skips numbers) they apply as they come.
func TestChangesSentOutOfOrderAreAppliedInVersionOrder(t *testing.T) {
	const keys = "abcdefghijklmnopqrstuvwxyz0123456789"
	order := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 27, 18, 19, 20, 28, 21, 22, 23, 24, 29, 25, 26, 30, 31, 34, 32, 33, 35, 36}
	for _, hold := range []bool{true, false} {
		docs := New()
		docs.HoldOutOfOrder(hold)
		u := uri.File("/tmp/agent-lsp-test/burst.py")
		if err := docs.Open(protocol.TextDocumentItem{URI: u, Version: 0, Text: "\n"}); err != nil {
			t.Fatal(err)
		}
		changes := typing(u, keys)
		for _, v := range order {
			if _, err := docs.Change(changes[v-1], UTF16); err != nil {
				t.Fatalf("hold %v: version %d: %v", hold, v, err)
			}
		}
		got, version, _ := docs.Buffer(mustPath(t, u))
		typed := []rune(keys)
		slices.Reverse(typed)
		want := string(typed) + "\n"
		if hold && (got != want || version != 36) {
			t.Errorf("held: %q at version %d, want %q at 36", got, version, want)
		}
		if !hold && got == want {
			t.Errorf("the control applied out-of-order changes in order: the test shows nothing")
		}
	}
}

// TestAHeldChangeWhoseVersionNeverComes: a version that never comes (a
// client that skips numbers) holds its successor for a while, never for
// good; meanwhile readers see the last version in order.
func TestAHeldChangeWhoseVersionNeverComes(t *testing.T) {
	docs := New()
	docs.HoldOutOfOrder(true)
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
	// Closed while a change is held: the change goes with it.
	docs.Change(typing(u, "xxxxx")[4], UTF16)
	docs.Close(u)
	select {
	case p := <-changed:
		t.Errorf("a closed document's held change was applied (%s)", p)
	case <-time.After(2 * heldFor):
	}
}
