package agent

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/tools"
)

const traceRule = "----------------------------------------"

// TraceWriter prints events as the seeds' trace ([AGENT] [THINK] [ACT]
// [OBSERVE]), for the CLI's stderr. Safe for concurrent use.
func TraceWriter(w io.Writer, providerName string) func(Event) {
	var mu sync.Mutex // serialises writes from concurrent tool calls
	return func(e Event) {
		text := traceText(e, providerName)
		if text == "" {
			return
		}
		if e.Scope != "" {
			text = "[" + e.Scope + "] " + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n["+e.Scope+"] ") + "\n"
		}
		mu.Lock()
		defer mu.Unlock()
		// Model text and command output go to a terminal: shown, not obeyed.
		io.WriteString(w, tools.Displayable(text))
	}
}

func traceText(e Event, providerName string) string {
	var b strings.Builder
	switch e.Kind {
	case EventStart:
		if e.Scope != "" {
			fmt.Fprintf(&b, "[AGENT] Task: %s\n", firstLine(e.Text))
			break
		}
		fmt.Fprintf(&b, "[AGENT] Provider: %s\n[AGENT] User input: %s\n", providerName, firstLine(e.Text))
	case EventIteration:
		fmt.Fprintf(&b, "%s\n[AGENT] Iteration %d/%d\n%s\n[THINK] Calling LLM for next action...\n", traceRule, e.Iteration, e.MaxIterations, traceRule)
	case EventThought:
		if r := strings.TrimSpace(e.Reasoning); r != "" {
			fmt.Fprintf(&b, "[THINK] (reasoning) %s\n", preview(r, 3))
		}
		if len(e.Calls) == 0 {
			b.WriteString("[THINK] LLM decided to respond without tools - ending loop\n")
			break
		}
		if t := strings.TrimSpace(e.Text); t != "" {
			fmt.Fprintf(&b, "[THINK] %s\n", preview(t, 3))
		}
		for _, c := range e.Calls {
			fmt.Fprintf(&b, "[THINK] Tool call: %s\n", c.Name)
		}
	case EventToolCall:
		fmt.Fprintf(&b, "[ACT] Executing tool: %s\n[ACT] Input: %s\n", e.Call.Name, e.Call.Args)
	case EventToolResult:
		label := "Result preview"
		if e.Result.IsError {
			label = "Error"
		}
		fmt.Fprintf(&b, "[OBSERVE] %s (%s):\n%s\n", label, e.Call.Name, preview(e.Result.Content, 5))
	case EventNotice:
		fmt.Fprintf(&b, "[AGENT] %s\n", e.Text)
	case EventPlan:
		fmt.Fprintf(&b, "[PLAN]\n%s\n", strings.TrimRight(e.Text, "\n"))
	case EventFailed:
		fmt.Fprintf(&b, "[AGENT] Failed: %v\n", e.Err)
	}
	return b.String()
}

// preview keeps the first n lines of s.
func preview(s string, n int) string {
	lines := strings.SplitN(strings.TrimRight(s, "\n"), "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("… (%d more lines)", strings.Count(s, "\n")-n+1))
	}
	return strings.Join(lines, "\n")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
