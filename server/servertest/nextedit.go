package servertest

import (
	"strings"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

// NextEditRegion is the editable region of a next-edit request in the chat
// format (server/nextedit/prompt.go: its system prompt starts "You predict the
// next edit"), as the model is shown it, the cursor marker removed; false
// for any other request. A scripted model answers the region rewritten in
// a fenced block.
func NextEditRegion(body map[string]any) (string, bool) {
	if !strings.HasPrefix(llmtest.SystemText(body), "You predict the next edit") {
		return "", false
	}
	_, after, ok := strings.Cut(llmtest.LastUserText(body), "Editable region (from line ")
	if !ok {
		return "", false
	}
	// The fence is as long as the region needs (a Markdown file's fences
	// are longer than three backticks).
	_, after, ok = strings.Cut(after, "\n")
	fence := after[:len(after)-len(strings.TrimLeft(after, "`"))]
	_, after, found := strings.Cut(after, fence+"\n")
	end := strings.LastIndex(after, fence)
	if !ok || !found || fence == "" || end < 0 {
		return "", false
	}
	return strings.ReplaceAll(after[:end], "<|user_cursor_is_here|>", ""), true
}
