package server

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
)

// Completion as you type: textDocument/inlineCompletion (ghost text), and
// textDocument/completion where the user turned it on for clients without
// inline completion. It has its own model client, concurrency limit and
// failure pause, and its own lock, so it never holds up an agent run, a
// didChange or a code action, nor they it.

const (
	defaultDebounce     = 75 * time.Millisecond
	defaultMaxLines     = 8
	completionSlots     = 2    // model calls at once
	completionMaxTokens = 128  // per suggestion
	prefixBytes         = 6000 // about 1,500 tokens before the cursor
	suffixBytes         = 2000 // about 500 after
	neighbourBytes      = 1500 // from other open buffers of the language
)

// completer is the completion engine of a connection.
type completer struct {
	s      *Server
	slots  chan struct{}
	latest latestPerDocument // the request going per document

	mu       sync.Mutex // guards everything below
	infiller llm.Infiller
	builtFor string                 // the settings infiller was built from
	shown    map[uri.URI]suggestion // the latest suggestion per document
	calls    int                    // model calls made, for status and tests

	pause modelPause // after repeated failures
}

func newCompleter(s *Server) *completer {
	return &completer{s: s, slots: make(chan struct{}, completionSlots),
		shown: map[uri.URI]suggestion{}}
}

// suggestion is what was last suggested in a document at ed: on line,
// after lineLen bytes of it (ending in lineTail), text.
type suggestion struct {
	ed       edition
	line     uint32
	lineLen  int
	lineTail string
	text     string
}

// completionAt is the suggestion for the cursor: insert text at pos.
type completionAt struct {
	text  string
	pos   protocol.Position
	word  string // the identifier the cursor is in, up to the cursor
	model string
}

// lineTailBytes is how much of the line before the cursor completion
// keeps: enough for the word being typed and to check that the user typed
// through a suggestion.
const lineTailBytes = 256

// completionInput is what completion reads of a document at the cursor,
// copied, each part capped in bytes.
type completionInput struct {
	ed             edition
	path, language string
	prefix, suffix string
	lineLen        int    // bytes of the cursor's line before it
	lineTail       string // the last of them
	indent         int    // the cursor's line's, in bytes
}

func readCompletionInput(doc *document, text string, offset int) completionInput {
	lineStart := strings.LastIndexByte(text[:offset], '\n') + 1
	line := text[lineStart:offset]
	return completionInput{
		ed: doc.edition(), path: doc.path, language: doc.language,
		prefix: strings.Clone(head(text[:offset], prefixBytes)), suffix: strings.Clone(tailCut(text[offset:], suffixBytes)),
		lineLen: len(line), lineTail: strings.Clone(lastBytes(line, lineTailBytes)),
		indent: len(line) - len(strings.TrimLeft(line, " \t")),
	}
}

// suggest finds the suggestion at pos in document u, or none ("" text).
// A request superseded by a newer one for the same document ends with
// none before the model is called (or with its HTTP request cancelled).
// It copies only what the prompt holds of the document.
func (c *completer) suggest(ctx context.Context, u uri.URI, pos protocol.Position) (completionAt, error) {
	settings := c.s.workspace.settings()
	if !settings.Completion.Enabled() || c.s.opts.NewInfiller == nil {
		return completionAt{}, nil
	}
	enc := c.s.clientCaps().encoding
	var in completionInput
	if !c.s.docs.read(u, func(doc *document, text string) { in = readCompletionInput(doc, text, enc.offset(text, pos)) }) {
		return completionAt{}, nil
	}
	at := completionAt{pos: pos, word: wordBefore(in.lineTail)}

	ctx, done := c.latest.begin(ctx, u)
	defer done()
	c.mu.Lock()
	cached, hit := c.typedThrough(u, in, pos.Line)
	c.mu.Unlock()
	if hit {
		at.text = cached
		return at, nil
	}

	debounce := defaultDebounce
	if ms := settings.Completion.DebounceMS; ms > 0 {
		debounce = time.Duration(ms) * time.Millisecond
	}
	select {
	case <-time.After(debounce):
	case <-ctx.Done():
		return completionAt{}, nil // superseded, or the client cancelled
	}
	select {
	case c.slots <- struct{}{}:
		defer func() { <-c.slots }()
	case <-ctx.Done():
		return completionAt{}, nil
	}
	infiller, err := c.client(ctx, settings)
	if err != nil || infiller == nil {
		return completionAt{}, err
	}
	text, err := infiller.Infill(ctx, llm.InfillRequest{
		Prefix: c.s.neighbours(in.path, in.language) + in.prefix, Suffix: in.suffix,
		MaxTokens: completionMaxTokens,
	})
	c.pause.settle(ctx, err)
	if err != nil {
		if ctx.Err() != nil {
			return completionAt{}, nil
		}
		c.s.log.Debug("completion", "error", err)
		return completionAt{}, nil // a failed suggestion is no suggestion; the pause handles a dead model
	}
	maxLines := defaultMaxLines
	if n := settings.Completion.MaxLines; n > 0 {
		maxLines = n
	}
	at.text = shape(text, in.indent, in.suffix, maxLines)
	at.model = infiller.Name()
	if at.text != "" {
		c.remember(u, suggestion{ed: in.ed, line: pos.Line, lineLen: in.lineLen, lineTail: in.lineTail, text: at.text})
	}
	return at, nil
}

// remember keeps the suggestion shown in document u while that is open at
// its edition: one closed meanwhile keeps nothing.
func (c *completer) remember(u uri.URI, sug suggestion) {
	c.mu.Lock()
	c.shown[u] = sug
	c.mu.Unlock()
	if now, _ := c.s.docs.editionOf(u); now.opened != sug.ed.opened {
		c.mu.Lock()
		if c.shown[u].ed == sug.ed {
			delete(c.shown, u)
		}
		c.mu.Unlock()
	}
}

// forget drops what is known of document u and stops its request: it was
// closed.
func (c *completer) forget(u uri.URI) {
	c.latest.end(u)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.shown, u)
}

// typedThrough answers from the last suggestion when the user typed the
// characters it predicted, in the same opening of the document: the rest
// of it. c.mu is held.
func (c *completer) typedThrough(u uri.URI, in completionInput, line uint32) (string, bool) {
	last, ok := c.shown[u]
	if !ok || last.ed.opened != in.ed.opened || last.line != line {
		return "", false
	}
	n := in.lineLen - last.lineLen // bytes typed since
	if n <= 0 || n >= len(last.text) || n > len(in.lineTail) {
		return "", false
	}
	typed := in.lineTail[len(in.lineTail)-n:]
	// The line before them is the one the suggestion was made after, as
	// far as both tails reach.
	before := in.lineTail[:len(in.lineTail)-n]
	k := min(len(before), len(last.lineTail))
	if before[len(before)-k:] != last.lineTail[len(last.lineTail)-k:] || !strings.HasPrefix(last.text, typed) {
		return "", false
	}
	return last.text[n:], true
}

// client is the completion model's client, built on first use and again
// when its settings change; nil while paused after repeated failures.
func (c *completer) client(ctx context.Context, settings config.Settings) (llm.Infiller, error) {
	target := settings.CompletionTarget()
	key := target.String() + " fim=" + settings.Completion.FIM
	if c.pause.paused() {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.infiller == nil || c.builtFor != key {
		infiller, err := c.s.opts.NewInfiller(ctx, settings)
		if err != nil {
			return nil, fmt.Errorf("completion model: %w", err)
		}
		c.infiller, c.builtFor = infiller, key
	}
	c.calls++
	return c.infiller, nil
}

// completionStatus is completion in agent.status.
type completionStatus struct {
	Model  string    `json:"model,omitempty"` // "": off
	Calls  int       `json:"calls"`           // model calls so far
	Paused time.Time `json:"pausedUntil,omitzero"`
}

func (c *completer) status(settings config.Settings) completionStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := completionStatus{Calls: c.calls, Paused: c.pause.pausedUntil()}
	if settings.Completion.Enabled() {
		st.Model = settings.CompletionTarget().String()
	}
	return st
}

// neighbours is a little of the other open buffers of the language, as
// comments before the prefix: names and shapes the suggestion may use.
func (s *Server) neighbours(path, language string) string {
	open, close := commentSyntax(language, path)
	comment := func(text string) string {
		if close != "" {
			return open + " " + text + " " + close + "\n"
		}
		return strings.TrimRight(open+" "+text, " ") + "\n"
	}
	var b strings.Builder
	for _, other := range s.docs.heads(path, language, neighbourBytes/2+1) {
		if b.Len() >= neighbourBytes {
			break
		}
		snippet := other.head
		if len(snippet) > neighbourBytes/2 {
			snippet = snippet[:strings.LastIndexByte(snippet[:neighbourBytes/2], '\n')+1]
		}
		b.WriteString(comment("Path: " + s.shownPath(other.path)))
		for _, line := range strings.Split(strings.TrimRight(snippet, "\n"), "\n") {
			b.WriteString(comment(line))
		}
	}
	return b.String()
}

// head is the last n bytes of text before the cursor, from a line start.
func head(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := lastBytes(text, n)
	if nl := strings.IndexByte(cut, '\n'); nl >= 0 {
		return cut[nl+1:]
	}
	return cut
}

// tailCut is the first n bytes of text after the cursor, to a line end.
func tailCut(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := firstBytes(text, n)
	if nl := strings.LastIndexByte(cut, '\n'); nl >= 0 {
		return cut[:nl+1]
	}
	return cut
}

// shape trims a model's suggestion to what is worth showing: at most
// maxLines lines, ending before a line that leaves the cursor's block (less
// indented than the cursor's line, whose indentation is indent bytes),
// without the text already after the cursor (after), and without trailing
// blank lines.
func shape(text string, indent int, after string, maxLines int) string {
	text = strings.TrimRight(text, " \t\r\n")
	if text == "" {
		return ""
	}
	lines := strings.Split(text, "\n")
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) != "" && len(l)-len(strings.TrimLeft(l, " \t")) < indent {
			lines = lines[:i]
			break
		}
	}
	if len(lines) > maxLines {
		lines = lines[:maxLines]
	}
	text = strings.TrimRight(strings.Join(lines, "\n"), " \t\r\n")
	// The rest of the cursor's line (an auto-closed bracket, say) is there
	// already: the suggestion must not repeat it.
	rest, _, _ := strings.Cut(after, "\n")
	rest = strings.TrimRight(rest, " \t\r")
	for k := min(len(rest), len(text)); k > 0; k-- {
		if strings.HasSuffix(text, rest[:k]) {
			text = text[:len(text)-k]
			break
		}
	}
	// A last line the file already has right after the cursor's.
	if nextLines := strings.SplitN(strings.TrimPrefix(after[len(rest):], "\n"), "\n", 2); len(lines) > 1 && len(nextLines) > 0 {
		got := strings.Split(text, "\n")
		if strings.TrimSpace(got[len(got)-1]) != "" && strings.TrimSpace(got[len(got)-1]) == strings.TrimSpace(nextLines[0]) {
			text = strings.TrimRight(strings.Join(got[:len(got)-1], "\n"), " \t\r\n")
		}
	}
	return text
}

// wordBefore is the identifier the cursor is at the end of.
func wordBefore(lineBefore string) string {
	i := len(lineBefore)
	for i > 0 {
		c := lineBefore[i-1]
		if c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			i--
			continue
		}
		break
	}
	return lineBefore[i:]
}

func (s *Server) inlineCompletion(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.InlineCompletionParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	at, err := s.completer.suggest(ctx, params.TextDocument.URI, params.Position)
	if err != nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: "+err.Error())
	}
	list := &protocol.InlineCompletionList{Items: []protocol.InlineCompletionItem{}}
	if at.text != "" {
		rng := protocol.Range{Start: at.pos, End: at.pos}
		list.Items = append(list.Items, protocol.InlineCompletionItem{InsertText: protocol.String(at.text), Range: &rng})
	} else if item := s.nextEditItem(ctx, params.TextDocument.URI, params.Position); item != nil {
		// Nothing to complete at the cursor: the next edit, where one is due.
		list.Items = append(list.Items, *item)
	}
	return list, nil
}

// completion answers textDocument/completion with the suggestion as one
// item, for clients without inline completion. It replaces the word before
// the cursor with itself plus the suggestion, so clients filtering by that
// word keep it, and sorts after everything else: the language's own server's
// items come first.
func (s *Server) completion(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.CompletionParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	list := &protocol.CompletionList{IsIncomplete: true, Items: []protocol.CompletionItem{}}
	if !s.workspace.settings().Completion.ItemsOn() {
		return list, nil
	}
	at, err := s.completer.suggest(ctx, params.TextDocument.URI, params.Position)
	if err != nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: "+err.Error())
	}
	if at.text == "" {
		return list, nil
	}
	enc := s.clientCaps().encoding
	start := at.pos
	start.Character -= enc.width(at.word)
	lines := strings.Count(at.text, "\n") + 1
	label, _, _ := strings.Cut(at.word+at.text, "\n")
	detail := fmt.Sprintf("agent-lsp · %s · %d line(s)", at.model, lines)
	if lines > 1 {
		label += " …"
	}
	list.Items = append(list.Items, protocol.CompletionItem{
		Label: label, Kind: protocol.CompletionItemKindText, Detail: protocol.NewOptional(detail),
		SortText: protocol.NewOptional("~~agent-lsp"), FilterText: protocol.NewOptional(at.word + at.text),
		TextEdit: &protocol.TextEdit{Range: protocol.Range{Start: start, End: at.pos}, NewText: at.word + at.text},
	})
	return list, nil
}
