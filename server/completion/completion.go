// Package completion suggests code as the user types, from a small model's
// fill-in-the-middle (llm.Infiller): the text before and after the cursor,
// each capped in bytes and read from the document store without copying the
// document, plus the heads of the other open buffers of the language. It
// knows the document store and the model, never the LSP wire: the server's
// glue (server/completion.go) serves textDocument/inlineCompletion and
// textDocument/completion from it. It has its own model slot, concurrency
// limit, failure pause and lock, so it never holds up an agent run, a
// didChange or a code action, nor they it; what it keeps of a document (the
// last suggestion, to answer typing through it) dies when the document
// closes (Forget).
package completion

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/server/assist"
	"github.com/agent-lsp/agent-lsp/server/documents"
)

const (
	completionSlots     = 2    // model calls at once
	completionMaxTokens = 128  // per suggestion
	prefixBytes         = 6000 // about 1,500 tokens before the cursor
	suffixBytes         = 2000 // about 500 after
	neighbourBytes      = 1500 // from other open buffers of the language
)

// Engine is the completion engine of a connection.
type Engine struct {
	docs        *documents.Store
	newInfiller func(ctx context.Context, s config.Settings) (llm.Infiller, error)
	log         *slog.Logger
	slots       chan struct{}
	latest      assist.Latest // the request going per document
	slot        assist.Slot[llm.Infiller]
	pause       assist.Pause // after repeated failures

	mu    sync.Mutex             // guards shown
	shown map[uri.URI]suggestion // the latest suggestion per open document
}

// New is an engine over docs that builds its model with newInfiller; nil
// newInfiller leaves completion off.
func New(docs *documents.Store, newInfiller func(ctx context.Context, s config.Settings) (llm.Infiller, error), log *slog.Logger) *Engine {
	return &Engine{docs: docs, newInfiller: newInfiller, log: log, slots: make(chan struct{}, completionSlots),
		shown: map[uri.URI]suggestion{}}
}

// Env is what a suggestion is made with besides the document: the settings
// in force, the client's position encoding, how a file is named to the
// model and how a comment is written in a language.
type Env struct {
	Settings      config.Settings
	Encoding      documents.Encoding
	ShownPath     func(path string) string
	CommentSyntax func(language, path string) (open, close string)
}

// suggestion is what was last suggested in a document at ed: on line,
// after lineLen bytes of it (ending in lineTail), text.
type suggestion struct {
	ed       documents.Edition
	line     uint32
	lineLen  int
	lineTail string
	text     string
}

// At is the suggestion for the cursor: insert Text at Pos.
type At struct {
	Text  string
	Pos   protocol.Position
	Word  string // the identifier the cursor is in, up to the cursor
	Model string
}

// lineTailBytes is how much of the line before the cursor completion
// keeps: enough for the word being typed and to check that the user typed
// through a suggestion.
const lineTailBytes = 256

// completionInput is what completion reads of a document at the cursor,
// copied, each part capped in bytes.
type completionInput struct {
	ed             documents.Edition
	path, language string
	prefix, suffix string
	lineLen        int    // bytes of the cursor's line before it
	lineTail       string // the last of them
	indent         int    // the cursor's line's, in bytes
}

func readCompletionInput(doc documents.Document, offset int) completionInput {
	text := doc.Text
	lineStart := strings.LastIndexByte(text[:offset], '\n') + 1
	line := text[lineStart:offset]
	return completionInput{
		ed: doc.Edition(), path: doc.Path, language: doc.Language,
		prefix: strings.Clone(head(text[:offset], prefixBytes)), suffix: strings.Clone(tailCut(text[offset:], suffixBytes)),
		lineLen: len(line), lineTail: strings.Clone(documents.LastBytes(line, lineTailBytes)),
		indent: len(line) - len(strings.TrimLeft(line, " \t")),
	}
}

// Suggest finds the suggestion at pos in document u, or none ("" Text).
// A request superseded by a newer one for the same document ends with
// none before the model is called (or with its HTTP request cancelled).
// It copies only what the prompt holds of the document.
func (c *Engine) Suggest(ctx context.Context, u uri.URI, pos protocol.Position, env Env) (At, error) {
	settings, enc := env.Settings, env.Encoding
	if !settings.Completion.Enabled() || c.newInfiller == nil {
		return At{}, nil
	}
	var in completionInput
	if !c.docs.Read(u, func(doc documents.Document, _ documents.History) {
		in = readCompletionInput(doc, enc.Offset(doc.Text, pos))
	}) {
		return At{}, nil
	}
	at := At{Pos: pos, Word: wordBefore(in.lineTail)}

	ctx, done := c.latest.Begin(ctx, u)
	defer done()
	c.mu.Lock()
	cached, hit := c.typedThrough(u, in, pos.Line)
	c.mu.Unlock()
	if hit {
		at.Text = cached
		return at, nil
	}

	select {
	case <-time.After(settings.Completion.Debounce()):
	case <-ctx.Done():
		return At{}, nil // superseded, or the client cancelled
	}
	select {
	case c.slots <- struct{}{}:
		defer func() { <-c.slots }()
	case <-ctx.Done():
		return At{}, nil
	}
	infiller, err := c.client(ctx, settings)
	if err != nil || infiller == nil {
		return At{}, err
	}
	text, err := infiller.Infill(ctx, llm.InfillRequest{
		Prefix: c.neighbours(in.path, in.language, env) + in.prefix, Suffix: in.suffix,
		MaxTokens: completionMaxTokens,
	})
	c.pause.Settle(ctx, err)
	if err != nil {
		if ctx.Err() != nil {
			return At{}, nil
		}
		c.log.Debug("completion", "error", err)
		return At{}, nil // a failed suggestion is no suggestion; the pause handles a dead model
	}
	at.Text = shape(text, in.indent, in.suffix, settings.Completion.Lines())
	at.Model = infiller.Name()
	if at.Text != "" {
		c.remember(u, suggestion{ed: in.ed, line: pos.Line, lineLen: in.lineLen, lineTail: in.lineTail, text: at.Text})
	}
	return at, nil
}

// remember keeps the suggestion shown in document u while that is open at
// its edition: one closed meanwhile keeps nothing.
func (c *Engine) remember(u uri.URI, sug suggestion) {
	c.mu.Lock()
	c.shown[u] = sug
	c.mu.Unlock()
	if now, _ := c.docs.EditionOf(u); now.Opened != sug.ed.Opened {
		c.mu.Lock()
		if c.shown[u].ed == sug.ed {
			delete(c.shown, u)
		}
		c.mu.Unlock()
	}
}

// Forget drops what is known of document u and stops its request: it was
// closed.
func (c *Engine) Forget(u uri.URI) {
	c.latest.End(u)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.shown, u)
}

// typedThrough answers from the last suggestion when the user typed the
// characters it predicted, in the same opening of the document: the rest
// of it. c.mu is held.
func (c *Engine) typedThrough(u uri.URI, in completionInput, line uint32) (string, bool) {
	last, ok := c.shown[u]
	if !ok || last.ed.Opened != in.ed.Opened || last.line != line {
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
func (c *Engine) client(ctx context.Context, settings config.Settings) (llm.Infiller, error) {
	if c.pause.Paused() {
		return nil, nil
	}
	key := settings.CompletionTarget().String() + " fim=" + settings.Completion.FIM
	infiller, err := c.slot.Get(key, func() (llm.Infiller, error) { return c.newInfiller(ctx, settings) })
	if err != nil {
		return nil, fmt.Errorf("completion model: %w", err)
	}
	return infiller, nil
}

// Status is completion in agent.status.
type Status struct {
	Model  string    `json:"model,omitempty"` // "": off
	Calls  int       `json:"calls"`           // model calls so far
	Paused time.Time `json:"pausedUntil,omitzero"`
}

// Status is the engine's state under settings.
func (c *Engine) Status(settings config.Settings) Status {
	st := Status{Calls: c.slot.Calls(), Paused: c.pause.Until()}
	if settings.Completion.Enabled() {
		st.Model = settings.CompletionTarget().String()
	}
	return st
}

// neighbours is a little of the other open buffers of the language, as
// comments before the prefix: names and shapes the suggestion may use.
func (c *Engine) neighbours(path, language string, env Env) string {
	open, close := env.CommentSyntax(language, path)
	comment := func(text string) string {
		if close != "" {
			return open + " " + text + " " + close + "\n"
		}
		return strings.TrimRight(open+" "+text, " ") + "\n"
	}
	var b strings.Builder
	for _, other := range c.docs.Heads(path, language, neighbourBytes/2+1) {
		if b.Len() >= neighbourBytes {
			break
		}
		snippet := other.Text
		if len(snippet) > neighbourBytes/2 {
			snippet = snippet[:strings.LastIndexByte(snippet[:neighbourBytes/2], '\n')+1]
		}
		b.WriteString(comment("Path: " + env.ShownPath(other.Path)))
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
	cut := documents.LastBytes(text, n)
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
	cut := documents.FirstBytes(text, n)
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
