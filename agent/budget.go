package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/llm"
)

// Token counting is a documented estimate: four bytes of UTF-8 per token,
// which is what OpenAI's and Gemini's tokenizers average on English and code.
// No tokenizer ships offline for every model we speak to; when the provider
// reports the real count of a request, the next estimate is scaled by it.
const bytesPerToken = 4

// perMessageTokens covers a message's framing (role, separators).
const perMessageTokens = 4

// EstimateTokens estimates the tokens of text.
func EstimateTokens(text string) int { return (len(text) + bytesPerToken - 1) / bytesPerToken }

// imageTokens is what an image costs a vision model, about: OpenAI's
// high-detail tiles and Gemini's 258 per tile land near it for a screenshot.
const imageTokens = 1000

func messageTokens(m llm.Message) int {
	n := perMessageTokens + EstimateTokens(m.Text) + len(m.Images)*imageTokens
	for _, c := range m.ToolCalls {
		n += EstimateTokens(c.Name) + EstimateTokens(string(c.Args)) + perMessageTokens
	}
	for _, r := range m.ToolResults {
		n += EstimateTokens(r.Content) + perMessageTokens
	}
	return n
}

// DefaultContextWindow is the window of known models in tokens; 32,768 for
// the rest, a safe guess for local models.
func DefaultContextWindow(model string) int {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "gemini"), strings.Contains(m, "gpt-4.1"):
		return 1_000_000
	case strings.Contains(m, "gpt-4o"), strings.Contains(m, "gpt-5"), strings.Contains(m, "o3"), strings.Contains(m, "o4"):
		return 128_000
	case strings.Contains(m, "llama3"), strings.Contains(m, "llama-3"):
		return 8_192
	case strings.Contains(m, "qwen"), strings.Contains(m, "deepseek"), strings.Contains(m, "mistral"):
		return 32_768
	}
	return 32_768
}

// compactAt is the share of the window past which older turns are compacted.
const compactAt = 0.8

// keepRecent is how many of the latest messages compaction keeps verbatim.
const keepRecent = 4

// budget tracks a run's context size against its window.
type budget struct {
	window      int
	fixed       int     // system prompt and tool specs
	scale       float64 // provider's count / our estimate, from the last request
	compactions int
}

func newBudget(window int, system string, specs []llm.ToolSpec) *budget {
	b := &budget{window: window, scale: 1}
	b.setTools(system, specs)
	return b
}

// setTools counts the system prompt and tool specs (again, when a tool
// source changed them).
func (b *budget) setTools(system string, specs []llm.ToolSpec) {
	b.fixed = EstimateTokens(system)
	for _, s := range specs {
		b.fixed += EstimateTokens(s.Name) + EstimateTokens(s.Description) + EstimateTokens(string(s.Schema))
	}
}

func (b *budget) estimate(msgs []llm.Message) int {
	n := b.fixed
	for _, m := range msgs {
		n += messageTokens(m)
	}
	return int(float64(n) * b.scale)
}

// observe calibrates the estimate with the provider's count for a request.
func (b *budget) observe(msgs []llm.Message, reported int) {
	if reported <= 0 {
		return
	}
	b.scale = 1
	if est := b.estimate(msgs); est > 0 {
		b.scale = min(max(float64(reported)/float64(est), 0.25), 4)
	}
}

// inContext is how many tokens the conversation takes once resp joins msgs:
// the provider's count of the request plus the answer where it gave one,
// else the calibrated estimate.
func (b *budget) inContext(msgs []llm.Message, resp llm.Response) int {
	if resp.Usage.InputTokens > 0 {
		return resp.Usage.InputTokens + resp.Usage.OutputTokens
	}
	return b.estimate(msgs) + messageTokens(llm.Message{Role: llm.RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls})
}

// emitUsage reports a model call's tokens and the context it leaves.
func (a *Agent) emitUsage(i int, b *budget, msgs []llm.Message, resp llm.Response) {
	if a.cfg.OnEvent == nil {
		return
	}
	a.emit(Event{Kind: EventUsage, Iteration: i, MaxIterations: a.cfg.MaxIterations, Usage: resp.Usage, Price: resp.Price, Context: b.inContext(msgs, resp), Window: b.window})
}

// Compact has the model summarise the older part of the conversation h,
// as the loop does when the context fills up, keeping the first message
// and the latest turns verbatim; false when there was nothing to compact.
func (a *Agent) Compact(ctx context.Context, h *History) (bool, error) {
	return a.compact(ctx, h, 0, keepRecent)
}

// resultLimit is the most one tool result may take: a quarter of the window.
func (b *budget) resultLimit() int { return b.window / 4 }

// cutResult keeps the head and tail of an oversized tool result and tells the
// model how to read the rest.
func (b *budget) cutResult(content string) string {
	limit := b.resultLimit() * bytesPerToken
	if len(content) <= limit {
		return content
	}
	half := limit / 2
	head, tail := content[:half], content[len(content)-half:]
	return fmt.Sprintf("%s\n[… %d characters cut to fit the context window; read the rest in parts with read_file offset/limit, or narrow the search …]\n%s",
		head, len(content)-len(head)-len(tail), tail)
}

const summarizePrompt = `You compact the working memory of a coding agent. Summarize the conversation below for the agent itself:
the files it looked at and what it found, the changes it staged, the commands it ran and their results, and what
remains to do. Keep file paths, names and numbers exact. Be brief.`

// compact replaces the older turns of h with a summary written by the model.
// The task message and the most recent turns stay verbatim (the system
// prompt and AGENTS.md are not in the history; they are sent every time).
// keep is how many recent messages to keep; the boundary moves back so a
// tool result is never separated from the call it answers.
func (a *Agent) compact(ctx context.Context, h *History, task int, keep int) (bool, error) {
	msgs := h.msgs
	start := len(msgs) - keep
	for start > task+1 && msgs[start].Role != llm.RoleAssistant {
		start--
	}
	if start <= task+1 {
		return false, nil // nothing older than the recent turns
	}
	var transcript strings.Builder
	if earlier := previousSummary(msgs[task].Text); earlier != "" {
		// An earlier compaction's facts live only in the task message: carry
		// them into the new summary, or a second compaction forgets them.
		fmt.Fprintf(&transcript, "EARLIER SUMMARY (of the turns before these): %s\n", earlier)
	}
	for i, m := range msgs[:start] {
		if i == task {
			continue
		}
		writeTranscript(&transcript, m)
	}
	summary, err := a.complete(ctx, summarizePrompt, transcript.String(), false)
	if err != nil {
		return false, fmt.Errorf("compacting the context: %w", err)
	}
	before := len(msgs)
	taskMsg := msgs[task]
	taskMsg.Text = stripSummary(taskMsg.Text) + summaryMarker + strings.TrimSpace(summary)
	compacted := append([]llm.Message{taskMsg}, msgs[start:]...)
	h.msgs = compacted
	a.emit(Event{Kind: EventNotice, Text: fmt.Sprintf("[CONTEXT] compacted %d older messages into a summary (%d → %d messages)", start-1, before, len(compacted))})
	return true, nil
}

const summaryMarker = "\n\n(Summary of the earlier work on this task, compacted to fit the context window:)\n"

func stripSummary(task string) string {
	if i := strings.Index(task, summaryMarker); i >= 0 {
		return task[:i]
	}
	return task
}

// previousSummary is the summary an earlier compaction appended to task, or "".
func previousSummary(task string) string {
	if i := strings.Index(task, summaryMarker); i >= 0 {
		return strings.TrimSpace(task[i+len(summaryMarker):])
	}
	return ""
}

func writeTranscript(b *strings.Builder, m llm.Message) {
	switch m.Role {
	case llm.RoleUser:
		fmt.Fprintf(b, "USER: %s\n", m.Text)
	case llm.RoleAssistant:
		if m.Text != "" {
			fmt.Fprintf(b, "AGENT: %s\n", m.Text)
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(b, "AGENT CALLS %s %s\n", c.Name, c.Args)
		}
	case llm.RoleTool:
		for _, r := range m.ToolResults {
			content := r.Content
			if len(content) > 4000 {
				content = content[:2000] + "\n…\n" + content[len(content)-2000:]
			}
			fmt.Fprintf(b, "RESULT OF %s: %s\n", r.Name, content)
		}
	}
}

// fitContext compacts h when it passes compactAt of the window.
func (a *Agent) fitContext(ctx context.Context, b *budget, h *History, task int) error {
	if b == nil || float64(b.estimate(h.msgs)) < compactAt*float64(b.window) {
		return nil
	}
	compacted, err := a.compact(ctx, h, task, keepRecent)
	if compacted {
		b.compactions++
	}
	return err
}

// isContextTooLong reports the provider's refusal of an oversized request.
func isContextTooLong(err error) bool { return errors.Is(err, llm.ErrContextTooLong) }
