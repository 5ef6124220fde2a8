package agent

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools"
)

// TestThePromptSaysWhatCommandsSeeAsTheToolDoes: the system prompt and
// execute_command's description state what commands see in the same words
// (tools.CommandsSee), which the tools' tests hold against the behaviour.
func TestThePromptSaysWhatCommandsSeeAsTheToolDoes(t *testing.T) {
	p := SystemPrompt("/ws", "")
	if !strings.Contains(p, tools.CommandsSee) {
		t.Errorf("the system prompt does not state what commands see:\n%s", p)
	}
	if strings.Contains(p, "not your staged changes") || strings.Contains(p, "files on disk") {
		t.Errorf("the system prompt contradicts the tool:\n%s", p)
	}
}
