package nextedit

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/server/documents"
)

// The next-edit prompt and its answer: the recent edits as diff hunks, the
// editable region around the cursor with a cursor marker, and, for a chat
// model, an outline of the file; the model answers the region rewritten.
// Two formats: Zed's Zeta (a model trained on it) and a plain chat prompt.

// Every part has a byte cap, so a prompt costs the same in a minified
// file's one long line as in ordinary code: the recent edits
// (server/documents' history: 16 KiB of edited text, 128 bytes of each
// edit's line around it), the region (regionBytesAround each side of the
// cursor) and the outline (outlineLines lines of outlineLineBytes). Nothing
// of the size of the document is copied to build it.
const (
	regionLinesAround = 10   // lines above and below the cursor's
	regionBytesAround = 2048 // before the cursor and after it, at most
	outlineLines      = 40
	outlineLineBytes  = 120
	zetaRegionStart   = "<|editable_region_start|>"
	zetaRegionEnd     = "<|editable_region_end|>"
	zetaCursor        = "<|user_cursor_is_here|>"
	zetaFileStart     = "<|start_of_file|>"
)

// nesPrompt is what the model sees of a document. It holds copies of the
// parts it shows, never the document.
type nesPrompt struct {
	path   string // as shown to the model
	cursor int    // byte offset in the document
	// The editable region is the document's bytes [regionA, regionB):
	// whole lines, without the last one's line break, unless a line is
	// longer than the byte cap allows. region is a copy of it.
	regionA, regionB int
	region           string
	regionLine       int // the line regionA is on, from 1
	diff             string
	zeta             bool     // Zeta's format, else chat
	outline          []string // declaration lines, chat only
	// The bytes the user is typing: the cursor's word and their last
	// edit, unless it was an accepted suggestion. A suggestion keeps out.
	typingA, typingB int
}

// newNESPrompt builds the prompt from text, which may be a view of the
// document's buffer: everything it keeps is copied.
func newNESPrompt(text string, history documents.History, cursor int, zeta bool) nesPrompt {
	p := nesPrompt{cursor: cursor, zeta: zeta, diff: history.Hunks(text)}
	p.regionA, p.regionB = regionAround(text, cursor)
	p.region = strings.Clone(text[p.regionA:p.regionB])
	p.regionLine = strings.Count(text[:p.regionA], "\n") + 1
	p.typingA, p.typingB = wordAround(text, cursor)
	if start, end, accepted, ok := history.Last(); ok && !accepted {
		p.typingA, p.typingB = min(p.typingA, start), max(p.typingB, end)
	}
	if !zeta {
		p.outline = outline(text, outlineLines)
	}
	return p
}

// regionAround is the editable region around the cursor: regionLinesAround
// whole lines each side, cut at regionBytesAround bytes from the cursor,
// where a character starts.
func regionAround(text string, cursor int) (a, b int) {
	lo := max(0, cursor-regionBytesAround)
	lineStart := func(i int) int { return lo + strings.LastIndexByte(text[lo:i], '\n') + 1 }
	a = lineStart(cursor)
	for i := 0; i < regionLinesAround && a > lo; i++ {
		a = lineStart(a - 1)
	}
	for a < cursor && !utf8.RuneStart(text[a]) {
		a++
	}
	hi := min(len(text), cursor+regionBytesAround)
	b = cursor
	for i := 0; ; i++ {
		nl := strings.IndexByte(text[b:hi], '\n')
		if nl < 0 {
			b = hi
			break
		}
		if i == regionLinesAround {
			b += nl
			break
		}
		b += nl + 1
	}
	for b > cursor && b < len(text) && !utf8.RuneStart(text[b]) {
		b--
	}
	return a, b
}

// regionWithCursor is the editable region with the cursor marked.
func (p nesPrompt) regionWithCursor() string {
	at := p.cursor - p.regionA
	return p.region[:at] + zetaCursor + p.region[at:]
}

const zetaInstruction = "### Instruction:\nYou are a code completion assistant and your task is to analyze user edits and then rewrite an excerpt that the user provides, suggesting the appropriate edits within the excerpt, taking into account the cursor location.\n\n"

const nesChatSystem = "You predict the next edit a programmer will make, from their recent edits. " +
	"You get their recent edits as unified-diff hunks, an outline of the file, and an editable region of it with the cursor marked " + zetaCursor + ". " +
	"Reply with the editable region rewritten with the edit they will most likely make next (often: finishing a change they started elsewhere, " +
	"such as a rename or a new field), in one fenced code block and nothing else. Keep every other character as it is; " +
	"leave out the cursor marker. If no edit is likely, reply with the region unchanged."

// request is the model request for p.
func (p nesPrompt) request() llm.Request {
	diff := p.diff
	if p.zeta {
		var b strings.Builder
		b.WriteString(zetaInstruction + "### User Edits:\n\n")
		if diff != "" {
			fence := fenceFor(diff)
			fmt.Fprintf(&b, "User edited %q:\n%sdiff\n%s%s\n", p.path, fence, diff, fence)
		}
		fence := fenceFor(p.region)
		b.WriteString("\n### User Excerpt:\n\n" + fence + p.path + "\n")
		if p.regionA == 0 {
			b.WriteString(zetaFileStart + "\n")
		}
		b.WriteString(zetaRegionStart + "\n" + p.regionWithCursor() + "\n" + zetaRegionEnd + "\n" + fence + "\n\n### Response:\n")
		return llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: b.String()}}}
	}
	var b strings.Builder
	fence := fenceFor(diff)
	fmt.Fprintf(&b, "File: %s\n\nRecent edits:\n%sdiff\n%s%s\n\n", p.path, fence, diff, fence)
	if len(p.outline) > 0 {
		outline := strings.Join(p.outline, "\n")
		fence := fenceFor(outline)
		b.WriteString("Outline:\n" + fence + "\n" + outline + "\n" + fence + "\n\n")
	}
	line := p.regionLine
	region := p.regionWithCursor()
	if !strings.HasSuffix(region, "\n") {
		region += "\n"
	}
	fence = fenceFor(region)
	fmt.Fprintf(&b, "Editable region (from line %d):\n%s\n%s%s\n", line, fence, region, fence)
	return llm.Request{System: nesChatSystem, Messages: []llm.Message{{Role: llm.RoleUser, Text: b.String()}}}
}

// rewrite is the region as the model rewrote it, from its answer; false
// when the answer has no region (markers, or a fenced block).
func (p nesPrompt) rewrite(answer string) (string, bool) {
	var out string
	if p.zeta {
		_, after, ok := strings.Cut(answer, zetaRegionStart)
		if !ok {
			return "", false
		}
		inner, _, ok := strings.Cut(after, zetaRegionEnd)
		if !ok {
			return "", false
		}
		out = strings.TrimPrefix(strings.TrimPrefix(inner, "\r"), "\n")
	} else {
		inner, ok := fencedBlock(answer)
		if !ok {
			return "", false
		}
		out = inner
	}
	out = strings.ReplaceAll(out, zetaCursor, "")
	// The region's own line breaks at its end, whatever the model wrote
	// there: they are where the fence or marker goes, and models differ
	// on them; a suggestion to add or drop a trailing blank line is worth
	// nothing.
	region := p.region
	out = strings.TrimRight(out, "\r\n") + region[len(strings.TrimRight(region, "\r\n")):]
	return out, true
}

// fenceFor is a Markdown code fence for text: longer than any run of
// backticks in it, three at least, so a fence the text holds (a Markdown
// file's) cannot close the block.
func fenceFor(text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// fencedBlock is the text of the fenced code block in answer: from the line
// after the first fence line (three backticks or more, then perhaps a
// language) to the last run of at least as many backticks that ends a line
// (alone on it, or after the block's last text). The last, not the first:
// the block is the whole answer, and a region holding a fence, rewritten by
// a model that did not lengthen its own, holds lines that look like its end.
func fencedBlock(answer string) (string, bool) {
	start := strings.Index(answer, "```")
	if start < 0 {
		return "", false
	}
	opening := answer[start:]
	nl := strings.IndexByte(opening, '\n')
	if nl < 0 {
		return "", false
	}
	n := len(opening) - len(strings.TrimLeft(opening, "`"))
	body := opening[nl+1:]
	end := -1
	for i := 0; i <= len(body); {
		lineEnd := len(body)
		if next := strings.IndexByte(body[i:], '\n'); next >= 0 {
			lineEnd = i + next
		}
		line := strings.TrimRight(body[i:lineEnd], " \t\r")
		if run := len(line) - len(strings.TrimRight(line, "`")); run >= n {
			end = i + len(line) - run
		}
		i = lineEnd + 1
	}
	if end < 0 {
		return "", false
	}
	return body[:end], true
}

// outline is the file's declaration lines, numbered: lines at the left
// margin that open something (not a closing bracket, a comment or a blank),
// each cut at outlineLineBytes. It reads text in place, line by line.
func outline(text string, max int) []string {
	var out []string
	for i, rest := 0, text; rest != "" && len(out) < max; i++ {
		line := rest
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			line, rest = rest[:nl], rest[nl+1:]
		} else {
			rest = ""
		}
		t := strings.TrimRight(line, " \t\r")
		if t == "" || t[0] == ' ' || t[0] == '\t' || strings.ContainsAny(t[:1], "})]") ||
			strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") ||
			strings.HasPrefix(t, "import") {
			continue
		}
		out = append(out, fmt.Sprintf("%d: %s", i+1, documents.FirstBytes(t, outlineLineBytes)))
	}
	return out
}

// smallestEdit is the one replacement that turns old into new: new[a:b2]
// replaces old[a:b], widened to whole identifiers at its ends. ok is false
// when old and new are the same.
func smallestEdit(old, new string) (a, b, b2 int, ok bool) {
	if old == new {
		return 0, 0, 0, false
	}
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	s := 0
	for s < len(old)-p && s < len(new)-p && old[len(old)-1-s] == new[len(new)-1-s] {
		s++
	}
	// A changed identifier is replaced whole: "name" by "fullName", not "n"
	// by "fullN".
	firstChanged := func() byte {
		if p < len(old)-s {
			return old[p]
		}
		return new[p]
	}
	lastChanged := func() byte {
		if p < len(old)-s {
			return old[len(old)-s-1]
		}
		return new[len(new)-s-1]
	}
	if isIdentByte(firstChanged()) {
		for p > 0 && isIdentByte(old[p-1]) {
			p--
		}
	}
	if isIdentByte(lastChanged()) {
		for s > 0 && isIdentByte(old[len(old)-s]) {
			s--
		}
	}
	return p, len(old) - s, len(new) - s, true
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
