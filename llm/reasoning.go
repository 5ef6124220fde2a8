package llm

import "strings"

// Reasoning models served without a reasoning parser (Ollama, vLLM and
// llama.cpp without one, DeepSeek-R1 distills on Groq) write their thinking
// into the content, before the answer, between tags. These are the
// spellings in use; the answer is what follows the closing tag.
var thinkTags = []struct{ open, close string }{
	{"<think>", "</think>"},         // DeepSeek-R1, QwQ, Qwen3, GLM, MiniMax, Phi-4-reasoning
	{"<thinking>", "</thinking>"},   // Reflection-style fine-tunes, prompted chains of thought
	{"<reasoning>", "</reasoning>"}, // GRPO fine-tunes
	{"<thought>", "</thought>"},     // EXAONE Deep, Gemini's OpenAI compatibility
	{"<seed:think>", "</seed:think>"},
	{"[THINK]", "[/THINK]"}, // Mistral's Magistral
	{"◁think▷", "◁/think▷"}, // Kimi
	// gpt-oss's harmony analysis channel when the server's template
	// misfires and the channel tokens leak into the content.
	{"<|channel|>analysis<|message|>", "<|end|>"},
	{"<|start|>assistant<|channel|>analysis<|message|>", "<|end|>"},
}

// harmonyFinal is what opens gpt-oss's answer, after its analysis or
// alone: skipped like the whitespace after a closing tag.
var harmonyFinal = []string{"<|start|>assistant<|channel|>final<|message|>", "<|channel|>final<|message|>"}

// orphanCloses are the closing tags that may come without their opening
// one: templates (QwQ, DeepSeek-R1's, Qwen3's thinking models', Kimi's)
// put the opening tag in the prompt, so the content starts mid-thought.
// Harmony's <|end|> is too generic to count alone.
var orphanCloses = []string{"</think>", "</thinking>", "</reasoning>", "</thought>", "</seed:think>", "[/THINK]", "◁/think▷"}

// tagWindow is longer than any closing tag: how far back a search resumes.
const tagWindow = 16

// Split is a content split into the model's reasoning and its answer.
type Split struct {
	Reasoning, Text string
	// OpenedInPrompt: the content had a closing tag without its opening
	// one, so the model's template opens the thought in the prompt.
	OpenedInPrompt bool
	// WrongGuess: the splitter started inside a thought (OpenedInPrompt
	// of an earlier answer) but the content was an answer after all: no
	// closing tag came (it was given to onText at the end), or the server
	// reported the reasoning apart.
	WrongGuess bool
}

type thinkState int

const (
	// atStart: only whitespace (and harmony's answer header) so far; an
	// opening tag may come.
	atStart thinkState = iota
	inThought
	inAnswer
)

// ThinkSplitter separates reasoning that a model wrote at the start of its
// content from the answer, as the content streams. It holds back only what
// may be the start of a tag; a tag in the middle of an answer or in code
// is left alone. Not safe for concurrent use.
type ThinkSplitter struct {
	onText, onReasoning func(string)

	state      thinkState
	pending    string // held back: leading whitespace or a possible tag's start
	close      string // the closing tag awaited in inThought; "" for any
	afterClose bool   // atStart follows a thought: whitespace is dropped
	guessed    bool   // a thought is taken as opened in the prompt
	unguessed  bool   // that was given up (the server reports reasoning apart)
	fresh      bool   // no reasoning of the current thought written yet
	// openedInPrompt: a closing tag came without its opening one.
	openedInPrompt bool
	reasoning      strings.Builder
	text           strings.Builder
	// orphan is where the search for a closing tag without an opening one
	// resumes in the text; -1 once there can be none.
	orphan int
	// orphanEnd and orphanSplit: where the reasoning ends and the answer
	// starts around that tag, once found.
	orphanEnd, orphanSplit int
}

// NewThinkSplitter routes content deltas to onText and onReasoning
// (either may be nil). With openedInPrompt the content starts inside a
// thought (see Split.OpenedInPrompt).
func NewThinkSplitter(onText, onReasoning func(string), openedInPrompt bool) *ThinkSplitter {
	s := &ThinkSplitter{onText: onText, onReasoning: onReasoning}
	if openedInPrompt {
		s.guessed, s.orphan = true, -1
	}
	return s
}

// SplitThinking splits a whole content.
func SplitThinking(content string) Split {
	s := NewThinkSplitter(nil, nil, false)
	s.Write(content)
	return s.Close(false)
}

// ReasoningApart says the server reports the reasoning in a field of its
// own (it has a reasoning parser), so the content is the answer: a thought
// taken as opened in the prompt is not, if no content came yet.
func (s *ThinkSplitter) ReasoningApart() {
	if s.guessed && s.state == atStart {
		s.guessed, s.unguessed, s.orphan = false, true, 0
	}
}

// Write takes the next piece of content.
func (s *ThinkSplitter) Write(delta string) {
	for delta != "" {
		switch s.state {
		case atStart:
			delta = s.start(s.pending + delta)
		case inThought:
			delta = s.thought(s.pending + delta)
		case inAnswer:
			s.answer(delta)
			delta = ""
		}
	}
}

// start decides, from whitespace and a tag's first bytes, whether a
// thought opens; it returns what the next state is to read.
func (s *ThinkSplitter) start(buf string) string {
	s.pending = ""
	head, header := s.head(buf)
	for _, t := range thinkTags {
		if rest, ok := strings.CutPrefix(head, t.open); ok {
			s.guessed = false
			s.open(t.close)
			return rest
		}
	}
	if !s.afterClose {
		if rest, ok := cutAnyPrefix(head, orphanCloses); ok {
			// The thought opened in the prompt, and was empty.
			s.openedInPrompt = true
			s.closed()
			return rest
		}
	}
	if head == "" || isPrefixOfAny(head, openTags) || isPrefixOfAny(head, harmonyFinal) ||
		!s.afterClose && isPrefixOfAny(head, orphanCloses) {
		s.pending = buf
		return ""
	}
	if s.afterClose || header {
		buf = head
	}
	if s.guessed {
		s.open("") // whichever closing tag comes
		return buf
	}
	s.state = inAnswer
	return buf
}

func (s *ThinkSplitter) open(close string) {
	s.state, s.close, s.orphan, s.fresh = inThought, close, -1, true
}

func (s *ThinkSplitter) closed() {
	s.state, s.afterClose, s.guessed, s.orphan = atStart, true, false, -1
}

// head is buf without its leading whitespace and harmony's answer header
// (which opens the answer, after a thought or without one); header says
// one was cut.
func (s *ThinkSplitter) head(buf string) (head string, header bool) {
	head = strings.TrimLeft(buf, " \t\r\n")
	for cut := true; cut; {
		head, cut = cutAnyPrefix(head, harmonyFinal)
		header = header || cut
		head = strings.TrimLeft(head, " \t\r\n")
	}
	return head, header
}

// thought reads reasoning up to the closing tag; it returns what follows it.
func (s *ThinkSplitter) thought(buf string) string {
	s.pending = ""
	at, tagLen := s.findClose(buf)
	if at < 0 {
		keep := partialSuffix(buf, s.closes())
		s.emitReasoning(buf[:len(buf)-keep])
		s.pending = buf[len(buf)-keep:]
		return ""
	}
	s.emitReasoning(buf[:at])
	s.closed()
	return buf[at+tagLen:]
}

func (s *ThinkSplitter) closes() []string {
	if s.close != "" {
		return []string{s.close}
	}
	return orphanCloses
}

func (s *ThinkSplitter) findClose(buf string) (at, length int) {
	at = -1
	for _, c := range s.closes() {
		if i := strings.Index(buf, c); i >= 0 && (at < 0 || i < at) {
			at, length = i, len(c)
		}
	}
	return at, length
}

func (s *ThinkSplitter) emitReasoning(r string) {
	if s.fresh {
		if r = strings.TrimLeft(r, " \t\r\n"); r == "" {
			return
		}
		if s.reasoning.Len() > 0 {
			r = "\n\n" + r // a second thought
		}
		s.fresh = false
	}
	if r == "" {
		return
	}
	s.reasoning.WriteString(r)
	if s.onReasoning != nil {
		s.onReasoning(r)
	}
}

// answer passes text on, watching for a closing tag without an opening
// one (which can only be known once it comes).
func (s *ThinkSplitter) answer(delta string) {
	s.text.WriteString(delta)
	if s.onText != nil {
		s.onText(delta)
	}
	if s.orphan < 0 {
		return
	}
	text := s.text.String()
	from := max(0, s.orphan-tagWindow)
	s.orphan = len(text)
	if strings.IndexByte(text[from:], '/') < 0 {
		return // every closing tag has one
	}
	at := -1
	var tag string
	for _, c := range orphanCloses {
		if i := strings.Index(text[from:], c); i >= 0 && (at < 0 || from+i < at) {
			at, tag = from+i, c
		}
	}
	if at < 0 {
		return
	}
	s.orphan = -1
	before := text[:at]
	if strings.HasSuffix(before, "`") || strings.Count(before, "```")%2 == 1 || containsOpenTag(before) {
		return // a tag quoted in code or in the answer's own words
	}
	s.orphanEnd, s.orphanSplit, s.openedInPrompt = at, at+len(tag), true
	// Late, but the thought is shown as one.
	if r := strings.TrimSpace(before); r != "" && s.onReasoning != nil {
		s.onReasoning(r)
	}
}

// Close ends the content and returns the split. truncated says the model
// stopped at its token limit: an unclosed thought it opened is all
// reasoning either way, but one only guessed (openedInPrompt) is reasoning
// only when cut off, else it was an answer.
func (s *ThinkSplitter) Close(truncated bool) Split {
	switch s.state {
	case atStart:
		// What was held is text: whitespace, or the start of a tag that
		// never came (after a thought, only what is not whitespace).
		rest := s.pending
		if head, header := s.head(rest); s.afterClose || header {
			rest = head
		}
		if rest != "" {
			s.text.WriteString(rest)
			if s.onText != nil {
				s.onText(rest)
			}
		}
	case inThought:
		if s.guessed && !truncated {
			all := s.reasoning.String() + s.pending
			if all == "" {
				return Split{} // no content (a call alone): no sign either way
			}
			if s.onText != nil {
				s.onText(all)
			}
			return Split{Text: all, WrongGuess: true}
		}
		s.emitReasoning(s.pending)
	}
	s.pending = ""
	out := Split{Reasoning: strings.TrimRight(s.reasoning.String(), " \t\r\n"), Text: s.text.String(),
		OpenedInPrompt: s.openedInPrompt, WrongGuess: s.unguessed && !s.openedInPrompt}
	if s.orphanSplit > 0 {
		out.Reasoning = strings.TrimSpace(out.Text[:s.orphanEnd])
		out.Text = strings.TrimLeft(out.Text[s.orphanSplit:], " \t\r\n")
	}
	return out
}

// JoinReasoning is a response's reasoning from the fields a provider
// reports it in and from its content.
func JoinReasoning(reported, fromContent string) string {
	if reported != "" && fromContent != "" {
		return reported + "\n\n" + fromContent
	}
	return reported + fromContent
}

// partialSuffix is the length of buf's longest suffix that is a proper
// prefix of one of tags: what may be a tag split across deltas.
func partialSuffix(buf string, tags []string) int {
	best := 0
	for _, t := range tags {
		for n := min(len(buf), len(t)-1); n > best; n-- {
			if strings.HasSuffix(buf, t[:n]) {
				best = n
				break
			}
		}
	}
	return best
}

func cutAnyPrefix(s string, prefixes []string) (string, bool) {
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return rest, true
		}
	}
	return s, false
}

func isPrefixOfAny(s string, of []string) bool {
	for _, p := range of {
		if strings.HasPrefix(p, s) {
			return true
		}
	}
	return false
}

func containsOpenTag(s string) bool {
	for _, open := range openTags {
		if strings.Contains(s, open) {
			return true
		}
	}
	return false
}

var openTags = func() []string {
	var opens []string
	for _, t := range thinkTags {
		opens = append(opens, t.open)
	}
	return opens
}()
