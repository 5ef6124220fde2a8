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
	failurePause        = 30 * time.Second
	failuresBeforePause = 3
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
	failures int
	paused   time.Time // no model calls before this, after repeated failures
	calls    int       // model calls made, for status and tests
}

func newCompleter(s *Server) *completer {
	return &completer{s: s, slots: make(chan struct{}, completionSlots),
		shown: map[uri.URI]suggestion{}}
}

// suggestion is what was last suggested in a document: on line, after
// lineBefore (the line's text up to the cursor then), text.
type suggestion struct {
	line       uint32
	lineBefore string
	text       string
}

// completionAt is the suggestion for the cursor: insert text at pos.
type completionAt struct {
	text  string
	pos   protocol.Position
	word  string // the identifier the cursor is in, up to the cursor
	model string
}

// suggest finds the suggestion at pos in document u, or none ("" text).
// A request superseded by a newer one for the same document ends with
// none before the model is called (or with its HTTP request cancelled).
func (c *completer) suggest(ctx context.Context, u uri.URI, pos protocol.Position) (completionAt, error) {
	settings := c.s.workspace.settings()
	if !settings.Completion.Enabled() || c.s.opts.NewInfiller == nil {
		return completionAt{}, nil
	}
	doc, open := c.s.docs.get(u)
	if !open {
		return completionAt{}, nil
	}
	enc := c.s.clientCaps().encoding
	offset := enc.offset(doc.text, pos)
	lineStart := strings.LastIndexByte(doc.text[:offset], '\n') + 1
	lineBefore := doc.text[lineStart:offset]
	at := completionAt{pos: pos, word: wordBefore(lineBefore)}

	ctx, done := c.latest.begin(ctx, u)
	defer done()
	c.mu.Lock()
	cached, hit := c.typedThrough(u, pos.Line, lineBefore)
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
		Prefix: c.s.neighbours(doc) + head(doc.text[:offset], prefixBytes), Suffix: tailCut(doc.text[offset:], suffixBytes),
		MaxTokens: completionMaxTokens,
	})
	c.settle(err, ctx)
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
	at.text = shape(text, lineBefore, doc.text[offset:], maxLines)
	at.model = infiller.Name()
	if at.text != "" {
		c.mu.Lock()
		c.shown[u] = suggestion{line: pos.Line, lineBefore: lineBefore, text: at.text}
		c.mu.Unlock()
	}
	return at, nil
}

// typedThrough answers from the last suggestion when the user typed the
// characters it predicted: the rest of it. c.mu is held.
func (c *completer) typedThrough(u uri.URI, line uint32, lineBefore string) (string, bool) {
	last, ok := c.shown[u]
	if !ok || last.line != line || !strings.HasPrefix(lineBefore, last.lineBefore) {
		return "", false
	}
	typed := lineBefore[len(last.lineBefore):]
	if typed == "" || !strings.HasPrefix(last.text, typed) || len(typed) == len(last.text) {
		return "", false
	}
	return last.text[len(typed):], true
}

// client is the completion model's client, built on first use and again
// when its settings change; nil while paused after repeated failures.
func (c *completer) client(ctx context.Context, settings config.Settings) (llm.Infiller, error) {
	target := settings.CompletionTarget()
	key := target.String() + " fim=" + settings.Completion.FIM
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Now().Before(c.paused) {
		return nil, nil
	}
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

// settle counts a model call's failure; repeated ones pause completion, so
// a dead server is not asked on every keystroke. Cancellation is no failure.
func (c *completer) settle(err error, ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case err == nil:
		c.failures = 0
	case ctx.Err() == nil:
		c.failures++
		if c.failures >= failuresBeforePause {
			c.paused, c.failures = time.Now().Add(failurePause), 0
		}
	}
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
	st := completionStatus{Calls: c.calls}
	if settings.Completion.Enabled() {
		st.Model = settings.CompletionTarget().String()
	}
	if time.Now().Before(c.paused) {
		st.Paused = c.paused
	}
	return st
}

// neighbours is a little of the other open buffers of doc's language, as
// comments before the prefix: names and shapes the suggestion may use.
func (s *Server) neighbours(doc document) string {
	open, close := commentSyntax(doc.language, doc.path)
	comment := func(text string) string {
		if close != "" {
			return open + " " + text + " " + close + "\n"
		}
		return strings.TrimRight(open+" "+text, " ") + "\n"
	}
	var b strings.Builder
	for _, other := range s.docs.sameLanguage(doc) {
		if b.Len() >= neighbourBytes {
			break
		}
		snippet := other.text
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
	cut := text[len(text)-n:]
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
	cut := text[:n]
	if nl := strings.LastIndexByte(cut, '\n'); nl >= 0 {
		return cut[:nl+1]
	}
	return cut
}

// shape trims a model's suggestion to what is worth showing: at most
// maxLines lines, ending before a line that leaves the cursor's block (less
// indented than the cursor's line), without the text already after the
// cursor, and without trailing blank lines.
func shape(text, lineBefore, after string, maxLines int) string {
	text = strings.TrimRight(text, " \t\r\n")
	if text == "" {
		return ""
	}
	indent := len(lineBefore) - len(strings.TrimLeft(lineBefore, " \t"))
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
	var params inlineCompletionParams
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
