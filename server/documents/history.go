package documents

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// The edit history of an open document: what the user changed lately, as a
// person would tell it ("renamed name to fullName on line 3"), for next edit
// suggestions. It is recorded from didChange, so recording must stay cheap:
// an edit is kept as byte offsets and texts, later edits shift the offsets
// of earlier ones, and line numbers are counted only when a prompt is built.
// It is bounded (historyEdits edits, historyBytes bytes of text; the oldest
// go first) and never holds the file.

const (
	historyEdits = 16
	historyBytes = 16 << 10
	// coalesceGap: a change this close to the last edit (and at most one line
	// break away) continues it, as keystrokes on one line or the next do.
	coalesceGap = 256
)

// histEdit is one edit: new replaced old at start. new's offsets are in the
// document's current text (shifted as later edits move it).
type histEdit struct {
	start    int
	old, new string
	// elided: the edit was too big to keep; old and new hold nothing, oldLen
	// and newLen its size.
	elided         bool
	oldLen, newLen int
	accepted       bool // a suggestion the user accepted; never continued
}

func (e histEdit) end() int { return e.start + e.newLen }

// editHistory is a document's recent edits, oldest first. Its document's
// lock guards it.
type editHistory struct {
	edits []histEdit
	bytes int // of old and new texts kept
	// suggested is the edit last suggested, trimmed as record trims a
	// change: when the next change is that one, it is recorded as an
	// accepted suggestion of its own. Any other change drops it.
	suggested *histEdit
	// changedAt is where the latest change ended, in the current text: the
	// cursor, as far as the server can tell.
	changedAt int
}

// clone is h with edits of its own: what changes h later leaves it as it is.
func (h editHistory) clone() editHistory {
	h.edits = slices.Clone(h.edits)
	return h
}

// record notes that text replaces buf[start:end]; buf is the text before
// the change. Only the changed part is looked at, never the whole buffer.
// It says whether the change was the suggestion last made: the user
// accepted it, whether or not their client says so.
func (h *editHistory) record(buf []byte, start, end int, text string) (acceptedSuggestion bool) {
	old := buf[start:end]
	// A client may send a wide range for a small change: keep what changed.
	p := commonPrefix(old, text)
	old, text, start = old[p:], text[p:], start+p
	s := commonSuffix(old, text)
	old, text = old[:len(old)-s], text[:len(text)-s]
	end = start + len(old)
	if len(old) == 0 && len(text) == 0 {
		return false
	}
	h.changedAt = start + len(text)
	delta := len(text) - len(old)
	n := len(h.edits)
	sug := h.suggested
	h.suggested = nil
	accepted := sug != nil && sug.start == start && sug.oldLen == len(old) && sug.new == text
	merging := !accepted && n > 0 && h.continues(buf, h.edits[n-1], start, end)
	if merging {
		n-- // the last edit is rebuilt from buf by merge
	}
	for i := range h.edits[:n] {
		e := &h.edits[i]
		switch {
		case e.start >= end:
			e.start += delta
		case e.start > start:
			e.start = start // overwritten since: it starts where the new edit does
		}
	}
	switch {
	case merging:
		h.merge(buf, start, end, text)
	default:
		e := newHistEdit(start, old, text)
		e.accepted = accepted
		h.push(e)
	}
	return accepted
}

// suggest notes that text was suggested in place of buf[start:end].
func (h *editHistory) suggest(buf []byte, start, end int, text string) {
	old := buf[start:end]
	p := commonPrefix(old, text)
	old, text, start = old[p:], text[p:], start+p
	s := commonSuffix(old, text)
	h.suggested = &histEdit{start: start, oldLen: len(old) - s, new: text[:len(text)-s]}
}

// newHistEdit copies old and new: neither may keep a buffer alive.
func newHistEdit[B []byte | string](start int, old B, new string) histEdit {
	e := histEdit{start: start, oldLen: len(old), newLen: len(new)}
	if len(old)+len(new) > historyBytes/2 {
		e.elided = true
		return e
	}
	e.old, e.new = string(old), strings.Clone(new)
	return e
}

// continues says whether a change of buf[start:end] goes on with last: it
// touches last's text, or sits close by, on its line or the next.
func (h *editHistory) continues(buf []byte, last histEdit, start, end int) bool {
	if last.accepted || last.elided {
		return false
	}
	var gap []byte
	switch {
	case start > last.end():
		gap = buf[last.end():start]
	case end < last.start:
		gap = buf[end:last.start]
	}
	return len(gap) <= coalesceGap && bytes.Count(gap, []byte{'\n'}) <= 1
}

// merge folds the change of buf[start:end] into the last edit: one edit
// from the text before both to the text after both.
func (h *editHistory) merge(buf []byte, start, end int, text string) {
	last := h.edits[len(h.edits)-1]
	lo, hi := min(start, last.start), max(end, last.end())
	// Before both: the gap and last's old text in place of its new one.
	old := string(buf[lo:last.start]) + last.old + string(buf[last.end():hi])
	// After both: buf[lo:hi] with this change.
	newText := string(buf[lo:start]) + text + string(buf[end:hi])
	h.pop()
	if p := commonPrefix([]byte(old), newText); p > 0 {
		old, newText, lo = old[p:], newText[p:], lo+p
	}
	if s := commonSuffix([]byte(old), newText); s > 0 {
		old, newText = old[:len(old)-s], newText[:len(newText)-s]
	}
	if old == "" && newText == "" {
		return // typed and deleted again
	}
	h.push(newHistEdit(lo, old, newText))
}

func (h *editHistory) push(e histEdit) {
	h.edits = append(h.edits, e)
	h.bytes += len(e.old) + len(e.new)
	for len(h.edits) > historyEdits || h.bytes > historyBytes && len(h.edits) > 1 {
		h.bytes -= len(h.edits[0].old) + len(h.edits[0].new)
		h.edits[0] = histEdit{}
		h.edits = h.edits[1:]
	}
	if cap(h.edits) > 2*historyEdits { // re-slicing from the front keeps growing the array
		h.edits = append(make([]histEdit, 0, historyEdits+1), h.edits...)
	}
}

func (h *editHistory) pop() {
	last := h.edits[len(h.edits)-1]
	h.bytes -= len(last.old) + len(last.new)
	h.edits = h.edits[:len(h.edits)-1]
}

// replaced notes a change of the whole text from old to text: the part
// between their common prefix and suffix.
func (h *editHistory) replaced(old []byte, text string) bool {
	return h.record(old, 0, len(old), text)
}

// accept marks the last edit as a suggestion the user accepted: the next
// keystrokes start a new edit, and prompts say so. It says whether the
// edit was not known as one already.
func (h *editHistory) accept() bool {
	if n := len(h.edits); n > 0 && !h.edits[n-1].accepted {
		h.edits[n-1].accepted = true
		return true
	}
	return false
}

// size is the memory the history holds, in bytes.
func (h *editHistory) size() int {
	const editSize = 8 + 16 + 16 + 8 + 8 + 8 + 8 // fields of histEdit, padded
	return cap(h.edits)*editSize + h.bytes + 32
}

// History is a document's recent edits as Read gives them: valid only
// until Read's callback returns.
type History struct{ edits []histEdit }

// Hunks writes the edits as unified-diff hunks (hunks) against text, the
// document now.
func (h History) Hunks(text string) string { return hunks(text, h.edits) }

// Last is the latest edit's bytes in the text now, and whether it was a
// suggestion the user accepted; ok is false when there is none.
func (h History) Last() (start, end int, accepted, ok bool) {
	if len(h.edits) == 0 {
		return 0, 0, false, false
	}
	e := h.edits[len(h.edits)-1]
	return e.start, e.end(), e.accepted, true
}

// hunkContextBytes is how much of an edit's line a hunk shows on each
// side of the edit: a line of a minified file is not sent whole.
const hunkContextBytes = 128

// hunks writes edits as unified-diff hunks, oldest first, each with the
// line numbers and the lines it had when it was made: text (the document
// now, perhaps a view of its buffer) is taken back through the later edits
// as a pastText, which copies none of it. An edit's lines are written with
// the old text, then with the new, and at most hunkContextBytes of the line
// on either side.
func hunks(text string, edits []histEdit) string {
	past := pastText{text}
	out := make([]string, len(edits))
	starts := make([]int, len(edits)) // in past, as it is taken back
	for i, e := range edits {
		starts[i] = e.start
	}
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		size := past.len()
		start := min(starts[i], size)
		end := min(start+e.newLen, size)
		before, after := past.lineBefore(start, hunkContextBytes), past.lineAfter(end, hunkContextBytes)
		line := past.count(start-len(before), '\n') + 1
		var b strings.Builder
		if e.accepted {
			b.WriteString("(a suggestion the user accepted)\n")
		}
		if e.elided {
			fmt.Fprintf(&b, "@@ -%d +%d @@ (%d bytes replaced by %d, too large to show)\n", line, line, e.oldLen, e.newLen)
			out[i] = b.String()
			// Without its old text, the text before it is unknown: earlier
			// edits are shown in today's lines.
			continue
		}
		oldLines := strings.Split(before+e.old+after, "\n")
		newLines := strings.Split(before+e.new+after, "\n")
		if before == "" && (e.old == "" || strings.HasSuffix(e.old, "\n")) && (e.new == "" || strings.HasSuffix(e.new, "\n")) {
			// Whole lines added or removed: no line of context.
			oldLines, newLines = lines(e.old), lines(e.new)
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", line, len(oldLines), line, len(newLines))
		for _, l := range oldLines {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range newLines {
			b.WriteString("+" + l + "\n")
		}
		out[i] = b.String()
		past = past.replace(start, end, e.old)
		for j := range starts[:i] {
			switch {
			case starts[j] >= end:
				starts[j] -= e.newLen - e.oldLen
			case starts[j] > start:
				starts[j] = start
			}
		}
	}
	return strings.Join(out, "")
}

// pastText is a document as it was before some of its recent edits: the
// text now with those edits taken back, held as pieces (parts of the text
// and the edits' old texts), so taking an edit back copies nothing of the
// document. A history's edits make a few dozen pieces at most.
type pastText []string

func (p pastText) len() int {
	n := 0
	for _, s := range p {
		n += len(s)
	}
	return n
}

// slice is the pieces of bytes [a, b).
func (p pastText) slice(a, b int) pastText {
	var out pastText
	off := 0
	for _, s := range p {
		if lo, hi := max(a-off, 0), min(b-off, len(s)); lo < hi {
			out = append(out, s[lo:hi])
		}
		off += len(s)
	}
	return out
}

// replace is p with bytes [a, b) replaced by s.
func (p pastText) replace(a, b int, s string) pastText {
	out := p.slice(0, a)
	if s != "" {
		out = append(out, s)
	}
	return append(out, p.slice(b, p.len())...)
}

// count is the number of c bytes before offset end.
func (p pastText) count(end int, c byte) int {
	n := 0
	for _, s := range p.slice(0, end) {
		n += strings.Count(s, string(c))
	}
	return n
}

// lineBefore is the text of offset's line before it: at most max bytes.
func (p pastText) lineBefore(offset, max int) string {
	w := strings.Join(p.slice(offset-max, offset), "")
	if nl := strings.LastIndexByte(w, '\n'); nl >= 0 {
		return w[nl+1:]
	}
	return WholeRunes(w)
}

// lineAfter is the text of offset's line after it: at most max bytes.
func (p pastText) lineAfter(offset, max int) string {
	w := strings.Join(p.slice(offset, offset+max), "")
	if nl := strings.IndexByte(w, '\n'); nl >= 0 {
		return w[:nl]
	}
	return WholeRunes(w)
}

// lines is text's lines, text empty or ending with a line break.
func lines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

func commonPrefix(a []byte, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

func commonSuffix(a []byte, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
