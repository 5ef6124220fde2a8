package llm_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm"
)

var thinkCases = []struct {
	name, content    string
	reasoning, text  string
	openedInPrompt   bool
	streamedTextSeen string // what onText saw, when not text (an orphan close is known late)
}{
	{"think", "<think>\nThe user wants a sum.\n</think>\n\nreturn a + b", "The user wants a sum.", "return a + b", false, ""},
	{"whitespace before the tag", " \n\n<think>plan</think>answer", "plan", "answer", false, ""},
	{"plain answer", "return a + b", "", "return a + b", false, ""},
	{"leading whitespace of an answer is kept", "\n\treturn x\n", "", "\n\treturn x\n", false, ""},
	{"a tag in the middle of an answer", "Use <think>…</think> tags.", "", "Use <think>…</think> tags.", false, ""},
	{"a tag in code", "```xml\n<think>a</think>\n```", "", "```xml\n<think>a</think>\n```", false, ""},
	{"not a tag", "<thinker>x</thinker>", "", "<thinker>x</thinker>", false, ""},
	{"a lone bracket", "<", "", "<", false, ""},
	{"empty", "", "", "", false, ""},
	{"only whitespace", "\n\n", "", "\n\n", false, ""},
	{"unterminated: all reasoning", "<think>Let me count the files and", "Let me count the files and", "", false, ""},
	{"empty thought", "<think>\n\n</think>\n\nHi", "", "Hi", false, ""},
	{"thinking", "<thinking>a</thinking>b", "a", "b", false, ""},
	{"reasoning", "<reasoning>a</reasoning>\nb", "a", "b", false, ""},
	{"thought", "<thought>a</thought>b", "a", "b", false, ""},
	{"seed", "<seed:think>a</seed:think>b", "a", "b", false, ""},
	{"magistral", "[THINK]a[/THINK]b", "a", "b", false, ""},
	{"kimi", "◁think▷a◁/think▷b", "a", "b", false, ""},
	{"a JSON array is an answer", "[1, 2]", "", "[1, 2]", false, ""},
	{"harmony", "<|channel|>analysis<|message|>Need the sum.<|end|><|start|>assistant<|channel|>final<|message|>4",
		"Need the sum.", "4", false, ""},
	{"harmony with start", "<|start|>assistant<|channel|>analysis<|message|>Sum.<|end|>\n<|channel|>final<|message|>4", "Sum.", "4", false, ""},
	{"harmony without analysis", "<|start|>assistant<|channel|>final<|message|>4", "", "4", false, ""},
	{"harmony header cut short", "<|channel|>fin", "", "<|channel|>fin", false, ""},
	{"orphan close", "Okay, the user wants X.\n</think>\n\nHere it is.", "Okay, the user wants X.", "Here it is.", true,
		"Okay, the user wants X.\n</think>\n\nHere it is."},
	{"an empty thought opened in the prompt", "</think>\n\nHi", "", "Hi", true, ""},
	{"two thoughts", "<think>a</think>\n<think>b</think>c", "a\n\nb", "c", false, ""},
	{"a closing tag of HTML", "</div>", "", "</div>", false, ""},
	{"orphan close quoted", "Write `</think>` to close it.", "", "Write `</think>` to close it.", false, ""},
	{"orphan close in a fence", "```\n</think>\n```", "", "```\n</think>\n```", false, ""},
	{"close after an open tag in the answer", "The tags <think> and </think> wrap it.", "", "The tags <think> and </think> wrap it.", false, ""},
}

// TestSplitThinking: whole and streamed in every cut, the same split, and
// nothing of a thought reaches onText while it streams.
func TestSplitThinking(t *testing.T) {
	for _, c := range thinkCases {
		t.Run(c.name, func(t *testing.T) {
			got := llm.SplitThinking(c.content)
			if got.Reasoning != c.reasoning || got.Text != c.text || got.OpenedInPrompt != c.openedInPrompt {
				t.Fatalf("whole: %+v", got)
			}
			seen := c.streamedTextSeen
			if seen == "" {
				seen = c.text
			}
			for _, pieces := range cuts(c.content) {
				var text, reasoning strings.Builder
				s := llm.NewThinkSplitter(func(d string) { text.WriteString(d) }, func(d string) { reasoning.WriteString(d) }, false)
				for _, p := range pieces {
					s.Write(p)
				}
				split := s.Close(false)
				if split != got {
					t.Fatalf("streamed as %q: %+v, whole: %+v", pieces, split, got)
				}
				if text.String() != seen || strings.TrimSpace(reasoning.String()) != c.reasoning {
					t.Fatalf("streamed as %q: text %q, reasoning %q", pieces, text.String(), reasoning.String())
				}
			}
		})
	}
}

// cuts is content in two pieces at every byte, and byte by byte.
func cuts(content string) [][]string {
	out := [][]string{{content}}
	for i := 1; i < len(content); i++ {
		out = append(out, []string{content[:i], content[i:]})
	}
	var bytes []string
	for i := range len(content) {
		bytes = append(bytes, content[i:i+1])
	}
	return append(out, bytes)
}

// TestThinkSplitterOpenedInPrompt: for a model whose template opens the
// thought, the content is reasoning until the closing tag; without one it
// was an answer after all, unless the token limit cut the thought.
func TestThinkSplitterOpenedInPrompt(t *testing.T) {
	for _, c := range []struct {
		name, content   string
		truncated       bool
		reasoning, text string
		wrong           bool
	}{
		{"closed", "Okay, two files.\n</think>\n\nDone.", false, "Okay, two files.", "Done.", false},
		{"no close", "Done.", false, "", "Done.", true},
		{"cut off", "Okay, I need to", true, "Okay, I need to", "", false},
		{"no content (a call alone)", "", false, "", "", false},
		{"opened again in the content", "<think>\nOkay.</think>Done.", false, "Okay.", "Done.", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, pieces := range cuts(c.content) {
				var text, reasoning strings.Builder
				s := llm.NewThinkSplitter(func(d string) { text.WriteString(d) }, func(d string) { reasoning.WriteString(d) }, true)
				for _, p := range pieces {
					s.Write(p)
				}
				got := s.Close(c.truncated)
				if got.Reasoning != c.reasoning || got.Text != c.text || got.WrongGuess != c.wrong || text.String() != c.text {
					t.Fatalf("%q: %+v, streamed text %q", pieces, got, text.String())
				}
				if !c.wrong && strings.TrimSpace(reasoning.String()) != c.reasoning {
					t.Fatalf("%q: streamed reasoning %q", pieces, reasoning.String())
				}
			}
		})
	}
}

// BenchmarkThinkSplitter: the cost the splitter adds to each streamed
// chunk, for a plain answer (every model's case: the search for a closing
// tag alone runs) and for a thought then an answer.
// TestThinkSplitterReasoningApart: a server that reports the reasoning in
// a field of its own gives the answer as the content, even for a model
// taken to open its thought in the prompt.
func TestThinkSplitterReasoningApart(t *testing.T) {
	var text strings.Builder
	s := llm.NewThinkSplitter(func(d string) { text.WriteString(d) }, nil, true)
	s.ReasoningApart()
	s.Write("The ")
	if text.String() != "The " {
		t.Fatalf("the answer is held back: %q", text.String())
	}
	s.Write("answer.")
	if got := s.Close(false); got.Text != "The answer." || got.Reasoning != "" || !got.WrongGuess || text.String() != got.Text {
		t.Fatalf("%+v, streamed %q", got, text.String())
	}
}

func BenchmarkThinkSplitter(b *testing.B) {
	answer := strings.Repeat("Here are the files you asked for, with a short note on each of them. ", 40)
	for name, content := range map[string]string{
		"answer":  answer,
		"code":    strings.Repeat("x := a / b // the ratio, see https://go.dev/ref/spec\n", 40),
		"thought": "<think>\n" + strings.Repeat("The user wants the files listed, so I will call list_files. ", 20) + "\n</think>\n\n" + answer,
	} {
		pieces := strings.SplitAfter(content, " ")
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := llm.NewThinkSplitter(func(string) {}, func(string) {}, false)
				for _, p := range pieces {
					s.Write(p)
				}
				s.Close(false)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pieces)), "ns/chunk")
		})
	}
}

// FuzzThinkSplitter: however the content is cut, streaming splits it as a
// whole content is split, and what streams as text is the answer (or, for
// a closing tag known only when it comes, the content after any held
// whitespace).
func FuzzThinkSplitter(f *testing.F) {
	for _, c := range thinkCases {
		f.Add(c.content, uint64(0x9e3779b97f4a7c15))
	}
	f.Fuzz(func(t *testing.T, content string, cutsAt uint64) {
		whole := llm.SplitThinking(content)
		var text strings.Builder
		s := llm.NewThinkSplitter(func(d string) { text.WriteString(d) }, nil, false)
		rest := content
		for bits := cutsAt; rest != ""; bits >>= 3 {
			n := min(len(rest), int(bits&7)+1)
			s.Write(rest[:n])
			rest = rest[n:]
		}
		got := s.Close(false)
		if got != whole {
			t.Fatalf("streamed %+v, whole %+v", got, whole)
		}
		if !got.OpenedInPrompt && text.String() != got.Text {
			t.Fatalf("streamed text %q, answer %q", text.String(), got.Text)
		}
	})
}
